"""Builds of kernel files kept between pytest sessions, keyed by everything they depend on:
the bytes of the file and of every user header it includes, the backend and its compiler,
the runtime headers and this engine's code. $CLTC_KERNEL_CACHE names another directory,
or 'off' to build afresh every session."""
from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from ..backends import Backend
from ..compile.build_cache import publish, staging, toolkit_digest
from ..errors import UserError
from ..ownership import cache_home, others_may_write, private_dir
from ..frontend.parse import parse_file
from .build import build_library

ENV = "CLTC_KERNEL_CACHE"


def cache_root() -> Path | None:
    v = os.environ.get(ENV, "")
    if v.lower() == "off":
        return None
    if v:
        return Path(v)
    return cache_home() / "kernels"


def key(source: Path, backend: Backend) -> str:
    unit = parse_file(source, include_dirs=[source.parent])
    h = hashlib.sha256(toolkit_digest().encode())
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
    with contextlib.ExitStack() as stack:
        try:   # (libraries are loaded from here: only from a directory no one else can write)
            private_dir(root)
            tmp = stack.enter_context(staging(root))
        except (OSError, UserError):
            return build_library([source], backend, scratch)
        build_library([source], backend, tmp)
        publish(tmp, done)          # another session may have finished it first: keep theirs
    return done / "manifest.json"
