"""Programs built as shared libraries, run one after another in one process: the row host.

A campaign that wants only verdicts runs thousands of short programs. On a GPU each process of its
own makes a CUDA context, and the driver makes them one at a time (about 5 a second on an H100
machine: bench/results/indigo_scale_h100), so such a campaign is bound by context creation, not by
its programs. A row host (native/row_host.cpp, built once per backend and cached per user:
native_cache) makes its context once and runs each program in it: dlopen its library (fresh static data
and, as the CUDA runtime registers its module again, fresh __device__ variables), call its main,
dlclose it (its atexit handlers and destructors run then, as at exit). What the row prints goes
to files read back here; its exit status, time and peak memory come back on the host's pipe.

Each thread of the driver has its own host, started on its first row. A row that ends the host
(_Exit, abort, a crash, a fault of the cpu backend) or runs past its time limit is the row's
result, as a process of its own would be (status or signal, timed_out), and the next row starts a
new host; so does a row after which the host cannot be trusted to start afresh (its library
did not unload, the CUDA context holds an error, memory was left behind).

What a row cannot get as a new process would, and so what --share-context is not for: a
`cudaDeviceReset()` in the middle of a program synchronises but keeps the context (device state the
program made stays), and `cudaSetDeviceFlags` meets a context that already exists (the host retires
after any change of flags, but that row ran with the host's). Timings are the rows' own, but their
memory is the host's peak during the row.
"""
from __future__ import annotations

import atexit
import functools
import os
import select
import signal
import subprocess
import threading
import time
from pathlib import Path

from . import native_cache
from .. import reaper
from ..backends.process import RunResult, row_name
from ..errors import ToolchainMissing

SOURCE = Path(__file__).parent / "native" / "row_host.cpp"

_local = threading.local()
_all: list["RowHost"] = []
_all_lock = threading.Lock()


@functools.lru_cache(maxsize=None)
def host_program(backend: "Backend") -> Path:
    """The row host for `backend`'s libraries, built on first use and cached per user by its
    source and the backend's toolchain (native_cache)."""
    exe, why = native_cache.compiled(f"row_host-{backend.name}", SOURCE, backend.toolchain_id(),
                                     lambda out: backend.row_host_command(SOURCE, out))
    if exe is None:
        raise ToolchainMissing(f"the row host for the {backend.name} backend could not be built: {why}",
                               hint="run without --share-context")
    return exe


class RowHost:
    """One host process and the pipes to it; `run` one row at a time."""

    def __init__(self, backend: "Backend"):
        self.backend = backend
        self.proc: subprocess.Popen | None = None
        self.rows = 0          # rows the current process has run
        self.starts = 0        # processes started
        self.pid = os.getpid()

    def _start(self) -> subprocess.Popen:
        if self.pid != os.getpid():   # a forked child: the host and its pipes are the parent's
            self.proc, self.pid = None, os.getpid()
        if self.proc is None:
            exe = host_program(self.backend)
            self.proc = reaper.start_program(lambda: subprocess.Popen(
                [str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                env=reaper.program_env(None), start_new_session=True))
            self.rows = 0
            self.starts += 1
        return self.proc

    def close(self) -> None:
        """End the host: its stdin closes and it ends by itself (else it is killed)."""
        self._end(polite=True)

    def _kill_now(self) -> None:
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self._end(polite=False)

    def _end(self, polite: bool) -> int:
        """End the host and whatever is left in its process group; its exit status. polite: close
        its stdin first. Either way it has 10 s to end by itself (one that ended during a row, as
        its pipe says, is ending) before it is killed."""
        proc, self.proc = self.proc, None
        if proc is None:
            return 0
        try:
            if polite:
                proc.stdin.close()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        rc = proc.wait()
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        reaper.unwatch_group(proc.pid)
        return rc

    def run(self, lib: Path, args=(), env: dict | None = None, timeout: float | None = 300,
            stdin: str | None = None, cwd: str | Path | None = None) -> RunResult:
        with reaper.temp_dir(prefix="row-") as tmp:
            tmp = Path(tmp)
            out, err = tmp / "stdout", tmp / "stderr"
            inp = ""
            if stdin is not None:
                (tmp / "stdin").write_text(stdin)
                inp = str(tmp / "stdin")
            env = {k: v for k, v in (env or {}).items() if "=" not in k}
            fields = [str(Path(lib).resolve()), str(Path(cwd or os.getcwd()).resolve()), inp, str(out), str(err),
                      row_name(lib), str(len(args)), *map(str, args), str(len(env)),
                      *(f"{k}={v}" for k, v in env.items())]
            if any("\0" in f for f in fields):
                raise ValueError("a row's arguments and environment cannot hold NUL characters")
            proc = self._start()
            t0 = time.monotonic()
            try:
                proc.stdin.write(b"".join(f.encode() + b"\0" for f in fields))
                proc.stdin.flush()
                answer, timed_out = _read_line(proc.stdout, timeout)
            except BrokenPipeError:
                answer, timed_out = b"", False
            wall = time.monotonic() - t0
            if timed_out:
                self._kill_now()
                return RunResult(-signal.SIGKILL, _text(out), _text(err), wall, True)
            if not answer:   # the host ended during the row: its status is the row's
                return RunResult(self._end(polite=False), _text(out), _text(err), wall)
            self.rows += 1
            word, _, rest = answer.decode(errors="replace").strip().partition(" ")
            if word == "fail":
                self.close()
                return RunResult(127, "", f"row host: {rest}\n", wall)
            status, _how, wall_us, peak, retire = rest.split()
            if retire != "0":
                self.close()
            return RunResult(int(status), _text(out), _text(err), int(wall_us) / 1e6,
                             peak_rss_kib=int(peak) or None)


def _read_line(pipe, timeout: float | None) -> tuple[bytes, bool]:
    """One answer line from the host (b"" when it ended first), and whether the time ran out."""
    fd = pipe.fileno()
    deadline = None if timeout is None else time.monotonic() + timeout
    got = b""
    while not got.endswith(b"\n"):
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return got, True
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return got, True
        chunk = os.read(fd, 4096)
        if not chunk:
            return b"", False
        got += chunk
    return got, False


def _text(path: Path) -> str:
    try:
        return path.read_bytes().decode(errors="replace")
    except OSError:
        return ""


def host(backend: "Backend") -> RowHost:
    """This thread's row host for `backend`."""
    hosts = getattr(_local, "hosts", None)
    if hosts is None:
        hosts = _local.hosts = {}
    key = backend.toolchain_id()
    if key not in hosts:
        hosts[key] = RowHost(backend)
        with _all_lock:
            _all.append(hosts[key])
    return hosts[key]


def run(backend: "Backend", lib: Path, args=(), env: dict | None = None, timeout: float | None = 300,
        stdin: str | None = None, cwd: str | Path | None = None) -> RunResult:
    """Run the program built as library `lib` in this thread's row host."""
    return host(backend).run(lib, args, env=env, timeout=timeout, stdin=stdin, cwd=cwd)


@atexit.register
def close_all() -> None:
    with _all_lock:
        hosts = list(_all)
    for h in hosts:
        h.close()
