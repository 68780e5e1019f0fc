"""Builds of kernel files kept between pytest sessions, keyed by everything they depend on:
the bytes of the file and of every user header it includes, the backend and its compiler,
the runtime headers and this engine's code. $CLTC_KERNEL_CACHE names another directory,
or 'off' to build afresh every session."""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from runtime import include_dir

from ..backends import Backend
from ..errors import UserError
from ..ownership import others_may_write, private_dir
from ..frontend.parse import parse_file
from .build import build_library

ENV = "CLTC_KERNEL_CACHE"


def cache_root() -> Path | None:
    v = os.environ.get(ENV, "")
    if v.lower() == "off":
        return None
    if v:
        return Path(v)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cuda-correctness-toolkit" / "kernels"


@functools.lru_cache(maxsize=1)
def _toolkit_digest() -> str:
    """The runtime headers and the engine's code: a change to either rebuilds."""
    h = hashlib.sha256()
    engine = Path(__file__).resolve().parents[1]
    for root, pattern in ((include_dir(), "*"), (engine, "*.py")):
        for p in sorted(root.rglob(pattern)):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def key(source: Path, backend: Backend) -> str:
    unit = parse_file(source, include_dirs=[source.parent])
    h = hashlib.sha256(_toolkit_digest().encode())
    h.update(f"{backend.toolchain_id()}\0".encode())
    for f in sorted(unit.user_files):
        h.update(f.encode() + b"\0" + Path(f).read_bytes())
    return h.hexdigest()[:32]


def cached_library(source: Path, backend: Backend, scratch: Path) -> Path:
    """The manifest of `source` built for `backend`: from the cache when it holds one,
    else built (into the cache when it is writable, else into scratch)."""
    source = Path(source).resolve()
    root = cache_root()
    if root is None:
        return build_library([source], backend, scratch)
    done = root / key(source, backend)
    if (done / "manifest.json").is_file() and not others_may_write(root) and not others_may_write(done):
        return done / "manifest.json"
    try:   # (libraries are loaded from here: only from a directory no one else can write)
        private_dir(root)
        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    except (OSError, UserError):
        return build_library([source], backend, scratch)
    try:
        build_library([source], backend, tmp)
        try:
            os.rename(tmp, done)          # another session may have finished it first: keep theirs
        except OSError:
            pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done / "manifest.json"
