"""Peak resident memory of a child program, measured by a small native helper.

The helper (native/peak_rss.c) is compiled with the host C compiler on first use and cached
per user; when no compiler is around, memory is simply not measured (None)."""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

SOURCE = Path(__file__).parent / "native" / "peak_rss.c"


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cuda-correctness-toolkit"


@functools.lru_cache(maxsize=None)
def helper() -> Path | None:
    """The compiled helper, or None when it cannot be built here."""
    src = SOURCE.read_bytes()
    digest = hashlib.sha256(src).hexdigest()[:16]
    for cache in (_cache_dir(), Path(tempfile.gettempdir()) / f"cuda-correctness-toolkit-{os.getuid()}"):
        exe = cache / f"peak_rss-{digest}"
        if exe.is_file() and os.access(exe, os.X_OK):
            return exe
        cc = next((c for c in (os.environ.get("CC"), "cc", "gcc", "clang") if c and shutil.which(c)), None)
        if cc is None:
            return None
        try:
            cache.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".peak_rss.", dir=cache)
            os.close(fd)
            res = subprocess.run([cc, "-O2", "-o", tmp, str(SOURCE)], capture_output=True, text=True, timeout=120)
            if res.returncode == 0:
                os.chmod(tmp, 0o755)
                os.replace(tmp, exe)
                return exe
            Path(tmp).unlink(missing_ok=True)
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


def wrap(cmd: list[str]) -> tuple[list[str], Path | None]:
    """(command to run instead, file the peak will be written to), or (cmd, None)."""
    exe = helper()
    if exe is None:
        return cmd, None
    fd, out = tempfile.mkstemp(prefix="peak-rss-", suffix=".txt")
    os.close(fd)
    return [str(exe), out, *cmd], Path(out)


def read(out: Path | None) -> int | None:
    """The peak in KiB written by the helper (None if it wrote nothing); removes the file."""
    if out is None:
        return None
    try:
        text = out.read_text().strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None
    finally:
        out.unlink(missing_ok=True)
