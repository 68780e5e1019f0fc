"""`cltc amplify -- COMMAND`: block-schedule amplification of a project built through cltc-cc for
amplification (CLTC_MODE=amplify: every CUDA unit holds the schedule gate), judged by the project's own
test command.

The command runs once under the reference schedule (ascending serial order): every instrumented
process it starts writes its launches (runtime/include/cltc/schedule.h), the largest grid sizing the
`first` family. Then it runs under every schedule of the families (schedules.py: CLTC_SCHEDULE for the
GPU's gate, the emulator's own block order on the cpu backend), each run with a private log directory;
the command's outcome is its exit status (a hang: it outlived 20 times the reference's time). A
schedule under which the status differs from the reference's makes the command schedule-dependent.
The verdict and its reports are the suite engine's (engine.py `summarise`, report.py)."""
from __future__ import annotations

import shlex
import signal
import time
from pathlib import Path

from instrument import logs
from instrument.backends.cpu import CpuBackend
from instrument.errors import UserError
from instrument.execution import Campaign, Task, open_executor
from instrument.progress import Warnings
from instrument.protocol import SCHEDULE_LOG, Env
from instrument.reaper import temp_dir

from .. import project_run
from ..captured import Captured
from ..observed import Observed
from . import schedules
from .engine import AmplifyResult, summarise

REFERENCE = "asc"


def _env(spec: str) -> dict:
    """A schedule for every process: the GPU's gate reads CLTC_SCHEDULE, the cpu backend's emulator its
    own block order (each ignores the other's)."""
    return {Env.CLTC_SCHEDULE: spec, **schedules.order_env(CpuBackend(), spec)}


def _outcome(res) -> Observed:
    """A run of the command as an outcome: its exit status only (its output is the tests' own report)."""
    return Observed(res.returncode, Captured.of_text(""), "", res.wall_s, res.timed_out)


def _describe(o: Observed) -> str:
    if o.timed_out:
        return "(hang: timed out)"
    if o.exit_code < 0:
        try:
            return f"killed by {signal.Signals(-o.exit_code).name}"
        except ValueError:
            return f"killed by signal {-o.exit_code}"
    return f"exit status {o.exit_code}"


REFERENCE_TIMEOUT = 300.0   # seconds the reference run may take, without --timeout


def run(command: list[str], timeout: float | None, family: str, seed: int, runs: int = 1, jobs: int = 1,
        progress: bool = True, show_warnings: bool = False) -> AmplifyResult:
    """`timeout`: the limit of every run (default: the reference's REFERENCE_TIMEOUT, each schedule's 20
    times the reference's time, at least 10 s)."""
    warnings = Warnings("cltc", show_warnings)
    with temp_dir(prefix="cltc-amp-ref-") as tmp:
        limit = timeout or REFERENCE_TIMEOUT
        ref = project_run.run(command, "amplify", Path(tmp), limit, env=_env(REFERENCE), probe=True)
        if ref.result.timed_out:
            raise UserError(f"the command timed out after {limit:g}s under the reference schedule ({REFERENCE}): "
                            f"raise --timeout, or check the command for a hang")
        read = [logs.read_complete(p, SCHEDULE_LOG, f"the schedule log {p.name}") for p in ref.logs]
    processes = [r for r in read if r["process"]]
    if not processes:
        raise UserError(project_run.nothing_ran("amplify", ref, foreign=len(read)))
    if ref.lost:
        warnings.add(f"{ref.lost} process(es) began a schedule log and never finished it (killed or crashed while "
                     f"exiting): their launches do not size the schedules")
    backend = "+".join(sorted({r["process"][0].backend for r in processes})) or "unknown"
    blocks = max([launch.blocks for r in processes for launch in r["launch"]] or [1])
    per_schedule = 1 if backend == "cpu" else runs
    if backend == "cpu" and runs > 1:
        warnings.add(f"cpu backend: block order is deterministic for a given schedule, so each schedule runs once "
                     f"(not {runs} times)")
    limit = timeout or max(10.0, 20 * ref.result.wall_s)
    specs = [spec for spec in schedules.make(family, blocks, seed) for _ in range(per_schedule)]
    tasks = [Task(str(n), _scheduled, (tuple(command), spec, limit)) for n, spec in enumerate(specs)]
    observed: list = [None] * len(tasks)
    executor = open_executor(None, jobs, backend)
    try:
        with Campaign(executor, "amplify") as campaign:
            for d in campaign.shown(tasks, "cltc amplify", progress, "schedules"):
                if not d.ok:
                    raise UserError(d.error)
                observed[int(d.key)] = d.value
            stats = campaign.stats
    finally:
        executor.close()
    name = shlex.join(command)
    test = summarise(name, _outcome(ref.result), blocks, list(zip(specs, observed)), describe=_describe)
    return AmplifyResult(str(Path.cwd().resolve()), backend, family, seed, per_schedule, [test], list(warnings),
                         stats, name)


def _scheduled(_built, command: tuple[str, ...], spec: str, limit: float) -> Observed:
    with temp_dir(prefix="cltc-amp-run-") as tmp:
        return _outcome(project_run.run(list(command), "amplify", Path(tmp), limit, env=_env(spec)).result)
