"""The small native helpers of instrument/compile/native/, compiled on first use and cached per user by their
source and whatever else decides their build (a toolchain): in $XDG_CACHE_HOME (~/.cache), else in
the temporary directory; either only where no other user can write it (ownership.private_dir). A
helper appears whole or not at all (built under a temporary name)."""
from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Callable

from .. import reaper
from ..errors import UserError
from ..ownership import cache_home, private_dir


def _caches() -> list[Path]:
    return [cache_home(),
            Path(tempfile.gettempdir()) / f"cuda-correctness-toolkit-{os.getuid()}"]


def compiled(name: str, source: Path, key: str, command: Callable[[Path], list[str]]) -> tuple[Path | None, str]:
    """The helper NAME built from `source` by `command(output)`: (its path, ""), or (None, why it
    could not be built). `command` may raise OSError where the tools it needs are missing."""
    digest = hashlib.sha256(source.read_bytes() + key.encode()).hexdigest()[:16]
    why = "no cache directory could be written"
    for cache in _caches():
        try:   # (an executable is run from here: only from a directory no one else can write)
            private_dir(cache)
        except UserError as e:
            why = e.message
            continue
        exe = cache / f"{name}-{digest}"
        if exe.is_file() and not exe.is_symlink() and os.access(exe, os.X_OK):
            return exe, ""
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=cache)
            os.close(fd)
            res = subprocess.run(command(Path(tmp)), capture_output=True, text=True, timeout=300,
                                 env=reaper.scratch_env())
            if res.returncode == 0:
                os.chmod(tmp, 0o755)
                os.replace(tmp, exe)
                return exe, ""
            lines = (res.stderr or res.stdout).strip().splitlines()
            why = lines[-1] if lines else f"the compiler exited with status {res.returncode}"
        except (OSError, subprocess.TimeoutExpired) as e:
            why = str(e)
        if tmp:
            Path(tmp).unlink(missing_ok=True)
    return None, why
