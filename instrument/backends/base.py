"""The build/run interface both backends implement, and the process runner they share."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import reaper
from ..errors import BuildError


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


@dataclass
class BuildRequest:
    sources: list[Path]
    output: Path
    include_dirs: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    opt: str = "-O2"


def run_process(cmd: list[str], timeout: float | None = None, env: dict | None = None,
                cwd: str | Path | None = None, stdin: str | None = None,
                passthrough: bool = False, measure_memory: bool = False, argv0: str | None = None) -> RunResult:
    """Run cmd in its own process group; on timeout kill the whole group.

    passthrough=True lets the program's stdout/stderr go straight to ours;
    measure_memory=True records the program's peak resident memory; argv0 is the name the
    program sees as argv[0] (default: the path run)."""
    peak_file = None
    executable = None
    if argv0 is not None and not measure_memory:
        executable, cmd = cmd[0], [argv0, *cmd[1:]]
    if measure_memory:
        from ..peak_rss import wrap
        cmd, peak_file = wrap(cmd)
    t0 = time.monotonic()
    full_env = reaper.program_env(None if env is None else {**os.environ, **env})
    out_pipe = None if passthrough else subprocess.PIPE
    proc = subprocess.Popen(cmd, executable=executable, stdout=out_pipe, stderr=out_pipe,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            cwd=cwd, env=full_env, start_new_session=True,
                            text=True, errors="replace")
    reaper.watch_group(proc.pid)   # killed with us, however we end
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
    from ..peak_rss import read
    return read(peak_file)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Backend:
    """Build sources into an executable, run it, and say what stopped a run."""

    name = "?"
    needs_lowering = False   # whether sources need lower_cpu before this backend's compiler sees them
    real_device = False      # runs on a GPU: timings are the device's, device tools (Compute Sanitizer) apply
    orders_blocks = False    # runs a grid's blocks one after another in an order its environment sets

    def block_order_env(self, order: str, seed: int | None = None) -> dict:
        """The environment that makes a run start blocks in `order` (asc, desc, random with
        `seed`, or a comma list of linear block ids); {} on a backend that cannot
        (orders_blocks False: a tool imposes an order on the device itself)."""
        return {}

    def toolchain_id(self) -> str:
        """What identifies this backend's compiler and target, for caches of its builds."""
        return self.name

    def fault_of(self, result: RunResult) -> str | None:
        """What stopped a run when the backend itself stopped it (its message is on stderr); None
        when the program ended on its own, crashed or timed out."""
        return None

    def fault_detail(self, result: RunResult) -> str | None:
        """fault_of with the backend's own message appended, when it printed one."""
        return self.fault_of(result)

    def available(self) -> tuple[bool, str]:
        """(usable, reason when not)."""
        raise NotImplementedError

    def build(self, req: BuildRequest) -> Path:
        raise NotImplementedError

    def run(self, exe: Path, args=(), env: dict | None = None, timeout: float | None = 300,
            stdin: str | None = None, cwd: str | Path | None = None,
            passthrough: bool = False, measure_memory: bool = False) -> RunResult:
        # the program sees itself as ./NAME wherever the tool built it, so that what it prints of
        # argv[0] is the same in a plain run and under every tool
        return run_process([str(exe), *map(str, args)], timeout=timeout, env=env, cwd=cwd,
                           stdin=stdin, passthrough=passthrough, measure_memory=measure_memory,
                           argv0=f"./{Path(exe).name}")

    def _compile(self, cmd: list[str], req: BuildRequest, timeout: float = 600) -> Path:
        req.output.parent.mkdir(parents=True, exist_ok=True)
        res = run_process(cmd, timeout=timeout)
        if res.returncode != 0:
            lines = [ln for ln in (res.stderr + res.stdout).splitlines() if ln.strip()]
            first = next((ln for ln in lines if "error" in ln), lines[0] if lines else "")
            detail = "\n".join(lines[:20])
            raise BuildError(f"build failed ({self.name} backend): {first}",
                             hint=f"compiler said:\n{detail}\ncommand: {' '.join(cmd)}")
        return req.output
