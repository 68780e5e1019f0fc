"""A run's output without holding it: the program writes its stdout and stderr to files in the run's
scratch directory, and what cltc keeps of each is a `Captured` (its length, a digest to compare runs
by, and an excerpt to show). A test that prints a gigabyte costs a gigabyte of disk while it is
needed, never a gigabyte of memory. Comparisons read the files in chunks (`same_output`).

Text is read as the tools always read a program's output: UTF-8 with undecodable bytes replaced and
universal newlines (what subprocess's text mode gave), so two runs compare as before."""
from __future__ import annotations

import atexit
import contextlib
import hashlib
import io
import os
import shutil
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path

from instrument import reaper
from instrument.backends.process import RunResult, row_name, run_process
from instrument.errors import UserError

EXCERPT = 64 * 1024     # characters of an output kept in memory: an output this short is kept whole
CHUNK = 1 << 18         # characters read at a time when an output is hashed or compared


@dataclass(eq=False)
class Captured:
    """One output: `size` characters (bytes, when `binary`) whose SHA-256 is `digest`; `head` holds
    the first EXCERPT characters; the whole is in `head` when `complete`, else in `path` while this
    object lives (a file cltc keeps, or the suite's own expected-output file). A binary capture (a
    file a test writes) compares by its bytes and is read as strict UTF-8 text only for a tolerance."""
    size: int
    digest: str
    head: str
    path: Path | None = None
    binary: bool = False

    @property
    def complete(self) -> bool:
        return self.path is None

    def __eq__(self, other) -> bool:
        return isinstance(other, Captured) and (self.size, self.digest) == (other.size, other.digest)

    def __hash__(self) -> int:
        return hash((self.size, self.digest))

    def excerpt(self, n: int) -> str:
        """The first n characters, with '...' when there is more."""
        return self.head if self.size <= n else self.head[:n] + "..."

    def chunks(self):
        """The whole text, CHUNK characters at a time."""
        if self.complete:
            yield self.head
            return
        try:
            fh = _open_text(self.path, self.binary)
        except OSError:
            raise UserError(f"an output of {self.size} characters is no longer readable here ({self.path})",
                            hint="outputs longer than 64 KiB are compared on the host that ran them") from None
        with fh:
            while chunk := fh.read(CHUNK):
                yield chunk

    @classmethod
    def of_text(cls, text: str) -> "Captured":
        """Text already in memory (an expectation written in cltc.toml, a pytest node's summary)."""
        return cls(len(text), hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), text)

    @classmethod
    def of_file(cls, path: Path, keep: bool = False, binary: bool = False) -> "Captured":
        """The file at `path`, read in chunks: its text, or with `binary` its bytes. keep=False: the
        file stays where it is (an expected-output file of the suite); keep=True: it is a scratch
        file, moved into this process's store when it is needed later (longer than the excerpt, or
        binary) and removed when the Captured is dropped."""
        if binary:
            out = cls(*_hash_bytes(path), path=Path(path), binary=True)
        else:
            out = cls(*_hash_text(path), path=Path(path))
            if out.size <= EXCERPT:
                out.path = None
        if out.path is not None and keep:
            out.path = _store() / f"{os.getpid()}-{next(_serial)}"
            shutil.move(path, out.path)
            weakref.finalize(out, _unlink, out.path)
        return out


def _hash_text(path: Path) -> tuple[int, str, str]:
    h, size, head = hashlib.sha256(), 0, []
    with _open_text(path) as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk.encode("utf-8", "surrogatepass"))
            if size < EXCERPT:
                head.append(chunk[:EXCERPT - size])
            size += len(chunk)
    return size, h.hexdigest(), "".join(head)


def _hash_bytes(path: Path) -> tuple[int, str, str]:
    h, size, head = hashlib.sha256(), 0, b""
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
            head = head or chunk[:EXCERPT]
            size += len(chunk)
    return size, h.hexdigest(), head.decode("utf-8", "replace")


def _open_text(path, binary: bool = False):
    """A program's output as the tools read it (replacement characters, universal newlines); a
    written file's bytes as strict UTF-8, as they are (a tolerance compares its numbers)."""
    if binary:
        return open(path, encoding="utf-8", errors="strict", newline="")
    return open(path, encoding="utf-8", errors="replace", newline=None)


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


# ---------------------------------------------------------------- the store of long outputs

_store_lock = threading.Lock()
_stores: dict[int, Path] = {}
_serial = iter(range(1, 1 << 62))


def _store() -> Path:
    """This process's directory of kept outputs: a reaper.temp_dir, removed at exit, or by the
    guardian when cltc is killed."""
    with _store_lock:
        if os.getpid() not in _stores:
            stack = contextlib.ExitStack()
            _stores[os.getpid()] = Path(stack.enter_context(reaper.temp_dir(prefix="cltc-out-")))
            atexit.register(stack.close)
        return _stores[os.getpid()]


# ---------------------------------------------------------------- running a program into files

def run_to_files(exe: Path, args, scratch: Path, cwd: Path, env: dict | None, timeout: float | None,
                 stdin: str | None) -> tuple[RunResult, Captured]:
    """Run `exe` as Backend.run does (its own process group, killed whole on timeout, watched by the
    reaper, ./NAME as argv[0]), with stdout and stderr going to files in `scratch`. Returns the
    result (stdout empty, stderr an excerpt) and the captured stdout."""
    res = run_process([str(exe), *map(str, args)], timeout=timeout, env=env, cwd=cwd, stdin=stdin,
                      argv0=row_name(exe), output_dir=scratch)
    res.stderr = _stderr_excerpt(scratch / "stderr")
    return res, Captured.of_file(scratch / "stdout", keep=True)


def _stderr_excerpt(path: Path) -> str:
    """stderr whole when short, else its beginning and its end (where a backend's fault message is)."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        if size <= 2 * EXCERPT:
            data = fh.read()
        else:
            head = fh.read(EXCERPT)
            fh.seek(size - EXCERPT)
            data = head + b"\n[... %d bytes ...]\n" % (size - 2 * EXCERPT) + fh.read()
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline=None).read()
