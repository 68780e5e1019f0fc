"""Nothing the tools start outlives them: a guardian process per tool process.

The first time a tool starts a program (or makes a scratch directory) it also starts a small
guardian that holds the read end of a pipe. The tool tells it which process groups and
directories are live; when the tool ends in any way, SIGKILL included, the pipe closes, and
the guardian kills those process groups and removes those directories before it exits.
Every program runs in its own process group (run_process), so its children go with it.

Run as a script (python -I -S reaper.py) it is the guardian; only the standard library is used.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

_lock = threading.Lock()
_guardian: subprocess.Popen | None = None
_owner_pid = 0


def start() -> None:
    """Start this process's guardian now (before the first program, so that registering the
    program right after it starts costs only a pipe write)."""
    global _guardian, _owner_pid
    with _lock:
        if _guardian is not None and _owner_pid == os.getpid():
            return
        try:   # a forked child gets a guardian of its own
            _guardian = subprocess.Popen([sys.executable, "-I", "-S", os.path.abspath(__file__)],
                                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError:
            _guardian = None
            return
        _owner_pid = os.getpid()


def _send(line: str) -> None:
    start()
    with _lock:
        if _guardian is None:
            return
        try:
            _guardian.stdin.write((line + "\n").encode())
            _guardian.stdin.flush()
        except (OSError, ValueError):
            pass


def watch_group(pgid: int) -> None:
    _send(f"+g {pgid}")


def unwatch_group(pgid: int) -> None:
    _send(f"-g {pgid}")


def watch_dir(path: str | Path) -> None:
    _send(f"+d {os.path.abspath(path)}")


def unwatch_dir(path: str | Path) -> None:
    _send(f"-d {os.path.abspath(path)}")


@contextmanager
def temp_dir(prefix: str = "cctk-"):
    """A scratch directory that is removed when the block ends, or by the guardian when the
    tool is killed before that."""
    path = tempfile.mkdtemp(prefix=prefix)
    watch_dir(path)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        unwatch_dir(path)


def _serve() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # a Ctrl-C meant for the tool
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    groups: set[int] = set()
    dirs: set[str] = set()
    for raw in sys.stdin.buffer:
        op, _, arg = raw.decode(errors="replace").rstrip("\n").partition(" ")
        if op == "+g" and arg.isdigit():
            groups.add(int(arg))
        elif op == "-g" and arg.isdigit():
            groups.discard(int(arg))
        elif op == "+d":
            dirs.add(arg)
        elif op == "-d":
            dirs.discard(arg)
    for g in groups:   # the tool is gone: so are its programs
        try:
            os.killpg(g, signal.SIGKILL)
        except OSError:
            pass
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    _serve()
