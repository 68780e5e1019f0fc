"""Inputs indigo-bench reads (graphs, codes, a sweep's results) must be regular files: a FIFO, a
device or a socket given as one would make a read wait forever for a writer, or never end. What
is not one is told by the engine (instrument.files.not_regular), as for every tool's inputs."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from instrument.errors import UserError
from instrument.files import not_regular


def require_regular(path: str | Path, what: str) -> None:
    """Refuse an input that is not a regular file (a FIFO, a device, a socket): reading one could
    wait forever for a writer, or never end. Names the file."""
    why = not_regular(Path(path))
    if why == "no such":
        raise UserError(f"{path}: cannot read the {what}: no such file")
    if why:
        raise UserError(f"{path}: the {what} is {why}", hint=f"give the {what} as a plain file")


def read_regular(path: str | Path, what: str) -> bytes:
    """The bytes of an input that must be a regular file (require_regular). The file is opened
    without waiting (O_NONBLOCK: a FIFO opens at once) and checked again on the open descriptor, so
    that a FIFO put in its place after the first check cannot hang the read either."""
    require_regular(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise UserError(f"{path}: cannot read the {what}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UserError(f"{path}: the {what} is not a regular file (it was replaced after it was checked)",
                            hint=f"give the {what} as a plain file")
        try:
            return f.read()
        except OSError as e:
            raise UserError(f"{path}: cannot read the {what}: {e.strerror}") from None

