"""Tidy result files that grow one row at a time: each finished row is appended and flushed at
once, so an interrupted campaign loses only the rows that were running, and a rerun skips the
rows already there. A torn last line (killed mid-write) is ignored on reading and cut off before
appending. Rows are plain dicts of the file's columns."""
from __future__ import annotations

import csv
import fcntl
import io
import os
import threading
from contextlib import contextmanager
from pathlib import Path

from ..errors import UserError


@contextmanager
def campaign_lock(path: Path, what: str):
    """Hold an exclusive lock on a campaign's journal for the whole campaign: a second campaign
    on the same file refuses at once instead of writing every row twice. The lock goes with the
    process, however it ends."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(f"{path}: another {what} is using this file right now",
                            hint="wait for it to finish, or give this one another path") from None
        yield
    finally:
        os.close(fd)


def read_rows(path: Path, columns: list[str]) -> list[dict]:
    """Every complete row, in file order; [] when the file does not exist."""
    path = Path(path)
    if not path.is_file():
        return []
    lines = path.read_text().splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines = lines[:-1]   # torn by a kill mid-write
    reader = csv.DictReader(io.StringIO("".join(lines)))
    if reader.fieldnames and list(reader.fieldnames) != list(columns):
        raise UserError(f"{path}: not a results file of this kind or version (columns {reader.fieldnames})",
                        hint="use a new results file or output directory")
    return [d for d in reader if None not in d and not any(v is None for v in d.values())]


class CsvJournal:
    """Append rows as they finish (thread-safe)."""

    def __init__(self, path: Path, columns: list[str]):
        self.path = Path(path)
        self.columns = list(columns)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.is_file() or self.path.stat().st_size == 0
        if not new:
            read_rows(self.path, self.columns)   # refuses a file of other columns before we append
            data = self.path.read_bytes()
            if not data.endswith(b"\n"):   # drop a torn last line before appending
                with open(self.path, "r+b") as fh:
                    fh.truncate(data.rfind(b"\n") + 1)
        self._fh = open(self.path, "a", newline="")
        self._writer = csv.DictWriter(self._fh, fieldnames=self.columns)
        self._lock = threading.Lock()
        if new:
            self._writer.writeheader()
            self._fh.flush()

    def add(self, row: dict) -> None:
        with self._lock:
            self._writer.writerow(row)
            self._fh.flush()

    def close(self) -> None:
        self._fh.close()
