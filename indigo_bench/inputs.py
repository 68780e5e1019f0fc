"""Inputs indigo-bench reads (graphs, codes, a sweep's results) must be regular files: a FIFO, a
device or a socket given as one would make a read wait forever for a writer, or never end."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from instrument.errors import UserError


def require_regular(path: str | Path, what: str) -> None:
    """Refuse an input that is not a regular file (a FIFO, a device, a socket): reading one could
    wait forever for a writer, or never end. Names the file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise UserError(f"{path}: cannot read the {what}: {e.strerror}") from None
    _refuse_irregular(path, what, mode)


def _refuse_irregular(path: str | Path, what: str, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise UserError(f"{path}: the {what} is not a regular file ({_kind(mode)})",
                        hint=f"give the {what} as a plain file")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"


def read_regular(path: str | Path, what: str) -> bytes:
    """The bytes of an input that must be a regular file (require_regular). The file is opened
    without waiting (O_NONBLOCK: a FIFO opens at once) and checked on the open descriptor, so that
    a FIFO put in its place after a check cannot hang the read either."""
    require_regular(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise UserError(f"{path}: cannot read the {what}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        _refuse_irregular(path, what, os.fstat(fd).st_mode)
        try:
            return f.read()
        except OSError as e:
            raise UserError(f"{path}: cannot read the {what}: {e.strerror}") from None
