"""Peak resident memory of a child program, measured by a small native helper.

The helper (native/peak_rss.c) is compiled with the host C compiler on first use and cached
per user (native_cache); when no compiler is around, memory is simply not measured (None)."""
from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

from . import native_cache

SOURCE = Path(__file__).parent / "native" / "peak_rss.c"


@functools.lru_cache(maxsize=None)
def helper() -> Path | None:
    """The compiled helper, or None when it cannot be built here."""
    def command(out: Path) -> list[str]:
        cc = next((c for c in (os.environ.get("CC"), "cc", "gcc", "clang") if c and shutil.which(c)), None)
        if cc is None:
            raise OSError("no C compiler")
        return [cc, "-O2", "-o", str(out), str(SOURCE)]
    return native_cache.compiled("peak_rss", SOURCE, "", command)[0]


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
