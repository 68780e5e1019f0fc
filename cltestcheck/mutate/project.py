"""`cltc mutate -- COMMAND`: mutation testing of a project built through cltc-cc for mutation
(CLTC_MODE=mutate: every CUDA unit holds its mutant schemata and its own mutant table), judged by the
project's own test command.

The command runs once with no mutant active (the reference): every instrumented process it starts
writes its units' tables and the sites it reached (units.py reads and merges them: a mutant is its
stable id, file:line:column:operator:replacement). Then it runs once per reached mutant (`runs` times
with --runs) with that mutant selected by its stable id (CLTC_MUTANT), each run with a private log
directory: killed when the command's exit status differs from the reference's (a test failed), it
was killed by a signal, or it outlived 10 times the reference's time (timeout); survived when the
status is the reference's; not reached when no process of the reference reached it. Outcomes,
reports and the journal (`--results`) are the suite engine's (outcomes.py, journal.py)."""
from __future__ import annotations

import shlex
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from instrument.errors import UserError
from instrument.execution import Campaign, Task, open_executor
from instrument.frontend.suppressions import CLTC_IGNORE, Suppressed
from instrument.progress import Warnings
from instrument.protocol import EXIT_MEANING, Env
from instrument.reaper import temp_dir

from .. import project_run
from ..captured import Captured
from ..observed import Observed
from ..suite import TestCase
from .engine import judged, run_env
from .journal import MutantJournal, command_fingerprint
from .outcomes import MutantOutcome, MutationResult, Reference, Status, repeat
from .planner import Mutant, selector
from .scope import Scope, select
from .units import ProcessMutants, merge, read_log


@dataclass(frozen=True)
class Command:
    """What every run of the command shares."""
    argv: tuple[str, ...]
    backend: str             # the backend its processes ran on (cpu: later runs in seeded block orders)
    status: int              # the reference's exit status
    limit: float             # seconds before a mutant's run counts as a timeout


def _order_env(backend: str, r: int) -> dict:
    """Run r's block order where the backend orders blocks itself (the cpu backend: the suite engine's
    seeded orders after the first run); on a GPU the repeated runs vary on their own."""
    from instrument.backends.cpu import CpuBackend
    return run_env(CpuBackend(), r) if backend == "cpu" else {}


def _signal_name(status: int) -> str:
    try:
        return signal.Signals(-status).name
    except ValueError:
        return f"signal {-status}"


def _status_text(status: int) -> str:
    meaning = EXIT_MEANING.get(status)
    return f"status {status}" + (f" ({meaning})" if meaning else "")


def _reference(command: list[str], timeout: float) -> tuple[object, list[ProcessMutants], int]:
    """The command with no mutant active: its result, the processes that ran units built for mutation,
    and how many began a log and never finished it. A command that hangs or crashes, or that ran no
    such unit, is refused (one line: what to do)."""
    with temp_dir(prefix="cltc-mut-ref-") as tmp:
        ref = project_run.run(command, "mutate", Path(tmp), timeout, env={Env.CLTC_MUTANT: ""}, probe=True)
        res = ref.result
        if res.timed_out:
            raise UserError(f"the command timed out after {timeout:g}s with no mutant active, under cltc mutate: "
                            f"raise --timeout, or check the command for a hang")
        if res.returncode < 0:
            raise UserError(f"the command was killed by {_signal_name(res.returncode)} with no mutant active: mutants "
                            f"are judged against a command that works; fix it first (its output ends: "
                            f"{project_run.output_tail(Path(tmp), 1)!r})")
        read = [read_log(p) for p in ref.logs]
    processes = sorted((p for p in read if p is not None), key=lambda p: p.name)
    if not processes:
        raise UserError(project_run.nothing_ran("mutate", ref, foreign=len(read)))
    return res, processes, ref.lost


def _reached(processes: list[ProcessMutants]) -> dict[str, list[str]]:
    """Each reached mutant's stable id -> the processes (command lines) that reached it."""
    reached: dict[str, list[str]] = {}
    for p in processes:
        for s in p.reached_selectors():
            names = reached.setdefault(s, [])
            if p.name not in names:
                names.append(p.name)
    return reached


def run(command: list[str], timeout: float, operators: list[str], runs: int = 1, jobs: int = 1,
        results: Path | None = None, progress: bool = True, show_warnings: bool = False,
        scope: Scope | None = None) -> MutationResult:
    """Judge every mutant the command's processes reached; `results`: the journal (a campaign resumes);
    `scope` (scope.py): only the mutants it holds."""
    cwd = Path.cwd().resolve()
    t0 = time.monotonic()
    warnings = Warnings("cltc", show_warnings)
    res, processes, lost = _reference(command, timeout)
    if lost:
        warnings.add(f"{lost} process(es) began a reached-sites log and never finished it (killed or crashed "
                     f"while exiting): the mutants only they reached are not judged")
    program = merge(processes)
    backend = "+".join(sorted({p.backend for p in processes if p.backend})) or "unknown"
    mutants, left_out = select(scope, [m for m in program.mutants if m.operator in operators])
    reached = _reached(processes)
    name = shlex.join(command)
    note = ""
    if res.returncode:
        note = (f"the command fails with no mutant active (status {res.returncode}): a mutant is killed when the "
                f"status differs from it")
        warnings.add(note)
    reference = Reference(TestCase(name, timeout=timeout, exit_code=res.returncode),
                          Observed(res.returncode, Captured.of_text(""), "", res.wall_s),
                          {m.site for m in mutants if selector(m) in reached}, note)
    cmd = Command(tuple(command), backend, res.returncode, min(timeout, max(5.0, 10 * res.wall_s)))

    suppressed = Suppressed(CLTC_IGNORE)
    outcomes: dict[int, MutantOutcome] = {}
    for m in mutants:
        if suppressed(m.file, m.line):
            outcomes[m.id] = MutantOutcome(m, Status.IGNORED, reason="its line is marked `cltc: ignore`")
        elif selector(m) not in reached:
            outcomes[m.id] = MutantOutcome(m, Status.NO_COVERAGE, reason="no process of the command reached it")
    journal = MutantJournal(results, command_fingerprint(command, cwd, backend, runs, program.host)) if results else None
    earlier = journal.finished([m for m in mutants if m.id not in outcomes]) if journal else {}
    outcomes.update(earlier)
    todo = [m for m in mutants if m.id not in outcomes]
    if progress:
        already = f", {len(earlier)} of them already judged in {results}" if earlier else ""
        scoped = f" in scope ({left_out} left out by {scope.describe()})" if scope else ""
        print(f"cltc mutate: the command ran in {res.wall_s:.1f}s ({_status_text(res.returncode)}) with no mutant "
              f"active: {len(processes)} instrumented process(es) reached {len(reference.reached)} mutation sites, "
              f"{sum(selector(m) in reached for m in mutants)} of {len(mutants)} mutants{scoped}{already}; judging "
              f"{len(todo)}", file=sys.stderr)
    reference_s = time.monotonic() - t0
    t0 = time.monotonic()
    executor = open_executor(None, jobs, backend)
    try:
        with Campaign(executor, "mutate") as campaign:
            by_id = {m.id: m for m in todo}
            tasks = [Task(str(m.id), _judge, (cmd, m, runs, reached[selector(m)])) for m in todo]
            for d in campaign.shown(tasks, "cltc mutate", progress, "mutants"):
                judged(d, by_id, outcomes, journal)
            stats = campaign.stats
    finally:
        executor.close()
        if journal:
            journal.close()
    dropped = [m for m in program.dropped if m.operator in operators and (scope is None or scope(m))]
    return MutationResult(str(cwd), backend, runs, list(operators), [outcomes[m.id] for m in mutants], [reference],
                          dropped, 0, reference_s, time.monotonic() - t0, list(warnings), stats, name,
                          out_of_scope=left_out, scope=scope.describe() if scope else "")


def _judge(_built, cmd: Command, m: Mutant, runs: int, covered_by: list[str]) -> MutantOutcome:
    """Run the command with the mutant selected, `runs` times (on the cpu backend run k > 0 in block
    order seed k), and judge it by its exit status."""
    sel = selector(m)
    ran: list[bool] = []

    def once(r: int) -> tuple[bool, bool, str]:
        env = {Env.CLTC_MUTANT: sel, **_order_env(cmd.backend, r)}
        with temp_dir(prefix="cltc-mut-run-") as tmp:
            run = project_run.run(list(cmd.argv), "mutate", Path(tmp), cmd.limit, env=env)
            res = run.result
            if res.timed_out:
                return True, True, f"the command timed out after {cmd.limit:.1f}s (10 times the reference's time)"
            if res.returncode < 0:
                return True, False, f"the command was killed by {_signal_name(res.returncode)} (it crashed)"
            if res.returncode != cmd.status:
                return True, False, (f"the command exited with {_status_text(res.returncode)}, the reference with "
                                     f"{cmd.status} (a test failed)")
            ran.append(any(sel in p.active_selectors() for p in map(read_log, run.logs) if p is not None))
            return False, False, ""
    tally = repeat(once, runs)
    name = shlex.join(cmd.argv)
    out = MutantOutcome(m, Status.SURVIVED, covered_by=list(covered_by), kills={name: [tally.killed, tally.runs]})
    status = tally.status(runs)
    if status is not None:
        out.status, out.killed_by, out.reason = status, [name], tally.reason
    elif tally.killed:
        out.status = Status.UNDECIDED
        out.reason = f"killed in {tally.killed} of {tally.runs} runs ({tally.reason})"
    elif not all(ran):
        out.status = Status.FAILED
        out.reason = ("no process of the command's run selected it, though the reference reached it (a process "
                      "that does not pass CLTC_MUTANT on to its children, or that ran another build?)")
    else:
        out.reason = f"the command exited with the reference's status {cmd.status} in {tally.runs} run(s)"
    return out
