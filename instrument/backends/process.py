"""Running a program as a process of its own, in its own process group, with what came of it
(RunResult); shared by both backends and the tools that start programs themselves."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .. import reaper


@dataclass
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool = False
    peak_rss_kib: int | None = None   # peak resident memory, when measured (measure_memory=True)

    def describe_failure(self) -> str:
        if self.timed_out:
            return f"timed out after {self.wall_s:.1f}s (whole process group killed)"
        if self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            return f"crashed with {name}"
        return f"exited with status {self.returncode}"


def is_library(exe: Path | str) -> bool:
    """Whether a build is a program built as a shared library (BuildRequest.library)."""
    return Path(exe).suffix == ".so"


def row_name(exe: Path | str) -> str:
    """What the program sees as argv[0]: ./NAME wherever the tool built it, whether as an
    executable or as a library, so that what it prints of argv[0] is the same under every tool."""
    return f"./{Path(exe).stem if is_library(exe) else Path(exe).name}"


def run_process(cmd: list[str], timeout: float | None = None, env: dict | None = None,
                cwd: str | Path | None = None, stdin: str | None = None,
                passthrough: bool = False, measure_memory: bool = False, argv0: str | None = None,
                output_dir: Path | None = None) -> RunResult:
    """Run cmd in its own process group; on timeout kill the whole group.

    passthrough=True lets the program's stdout/stderr go straight to ours, and its stdin be ours
    (a program run for the user reads what the user gives it; otherwise stdin is `stdin` or empty);
    measure_memory=True records the program's peak resident memory; argv0 is the name the
    program sees as argv[0] (default: the path run); output_dir: stdout and stderr go to the files
    `stdout` and `stderr` there, never held in memory (a
    test that prints a gigabyte): the result's stdout and stderr are then empty."""
    peak_file = None
    executable = None
    if argv0 is not None and not measure_memory:
        executable, cmd = cmd[0], [argv0, *cmd[1:]]
    if measure_memory:
        from ..compile.peak_rss import wrap
        cmd, peak_file = wrap(cmd)
    t0 = time.monotonic()
    full_env = reaper.program_env(None if env is None else {**os.environ, **env})
    with contextlib.ExitStack() as files:
        if output_dir is not None:   # (the program holds its own descriptors once started)
            out_to = files.enter_context(open(Path(output_dir) / "stdout", "wb"))
            err_to = files.enter_context(open(Path(output_dir) / "stderr", "wb"))
        else:
            out_to = err_to = None if passthrough else subprocess.PIPE
        proc = reaper.start_program(lambda: subprocess.Popen(   # killed with us, however we end
            cmd, executable=executable, stdout=out_to, stderr=err_to,
            stdin=subprocess.PIPE if stdin is not None else None if passthrough else subprocess.DEVNULL,
            cwd=cwd, env=full_env, start_new_session=True, text=True, errors="replace"))
    try:
        out, err = proc.communicate(input=stdin, timeout=timeout)
        return RunResult(proc.returncode, out or "", err or "", time.monotonic() - t0,
                         peak_rss_kib=_peak(peak_file))
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        _peak(peak_file)
        return RunResult(-signal.SIGKILL, out or "", err or "", time.monotonic() - t0, True)
    except BaseException:
        _kill_group(proc)
        _peak(peak_file)
        raise
    finally:
        _kill_group(proc)   # children the program left behind in its group
        reaper.unwatch_group(proc.pid)


def _peak(peak_file) -> int | None:
    if peak_file is None:
        return None
    from ..compile.peak_rss import read
    return read(peak_file)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
