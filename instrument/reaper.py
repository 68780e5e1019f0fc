"""Nothing the tools start outlives them: a guardian process per tool process.

The first time a tool starts a program (or makes a scratch directory) it also starts a small
guardian that holds the read end of a pipe. The tool tells it which process groups and
directories are live; when the tool ends in any way, SIGKILL included, the pipe closes, and
the guardian kills those process groups and removes those directories before it exits.
Every program runs in its own process group (run_process), so its children go with it.

A program could run before its group's registration reaches the pipe (the tool killed right
after the start), so every program also carries this guardian's mark in its environment
(program_env); at the end the guardian also kills the group of every process bearing it.

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

MARK_VARIABLE = "CCTK_REAPER_MARK"

_lock = threading.Lock()
_guardian: subprocess.Popen | None = None
_owner_pid = 0
_mark = ""


def start() -> None:
    """Start this process's guardian now (before the first program, so that registering the
    program right after it starts costs only a pipe write)."""
    global _guardian, _owner_pid, _mark
    with _lock:
        if _guardian is not None and _owner_pid == os.getpid():
            return
        _mark = f"{os.getpid()}-{os.urandom(8).hex()}"
        try:   # a forked child gets a guardian of its own
            _guardian = subprocess.Popen([sys.executable, "-I", "-S", os.path.abspath(__file__), _mark],
                                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError:
            _guardian = None
            return
        _owner_pid = os.getpid()


def program_env(env: dict[str, str] | None) -> dict[str, str]:
    """The environment a program starts with: env (default: ours) plus this guardian's mark."""
    start()
    full = dict(os.environ if env is None else env)
    if _mark:
        full[MARK_VARIABLE] = _mark
    return full


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


def _marked_groups(mark: str) -> set[int]:
    """Process groups of the processes whose environment bears mark."""
    needle = f"{MARK_VARIABLE}={mark}".encode()
    found: set[int] = set()
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return found
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.add(os.getpgid(pid))
        except OSError:
            pass
    return found


def _serve(mark: str) -> None:
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
    if mark:
        groups |= _marked_groups(mark)
    groups.discard(os.getpgid(0))
    for g in groups:   # the tool is gone: so are its programs
        try:
            os.killpg(g, signal.SIGKILL)
        except OSError:
            pass
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    _serve(sys.argv[1] if len(sys.argv) > 1 else "")
