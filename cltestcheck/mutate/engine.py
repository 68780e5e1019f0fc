"""cltc mutate: plan schemata -> check they parse -> build once per host (schemata.py) -> reference
runs -> judge mutants (each reference run and each mutant is one task of the execution layer)."""
from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

from instrument.backends import Backend, get_backend
from instrument.errors import UserError
from instrument.execution import BuildOutcome, Campaign, HostBuild, Task, open_executor
from instrument.progress import Warnings

from ..config import DEFAULTS
from ..execute import run_test
from ..judge import judge
from ..suite import Suite, TestCase
from .journal import MutantJournal, fingerprint
from .outcomes import MutantOutcome, MutationResult, Reference, Status, repeat
from .planner import Mutant
from .scope import Scope, select
from .schemata import build_planned, plan_digest, plan_schemata
from instrument.reaper import temp_dir
from instrument.frontend.suppressions import CLTC_IGNORE, Suppressed
from instrument import logs
from instrument.protocol import REACH_LOG, Env

def run_env(backend: Backend, run: int) -> dict:
    """Run 0 as the program runs plainly; later runs in another (seeded) order where the backend
    orders blocks itself (on a GPU the repeated runs vary on their own)."""
    return backend.block_order_env("random", run) if run else {}


def judged(d, by_id: dict, outcomes: dict, journal) -> None:
    """A mutant's finished task (`Done`) as its outcome (FAILED with the task's error), kept and
    journaled."""
    m = by_id[int(d.key)]
    out = d.value if d.ok else MutantOutcome(m, Status.FAILED, reason=d.error)
    outcomes[m.id] = out
    if journal:
        journal.add(out)


def run(suite: Suite, backend_name: str = DEFAULTS["shared"]["backend"], operators: list[str] | None = None,
        runs: int = DEFAULTS["mutate"]["runs"],
        jobs: int = 1, progress: bool = True, dask: str | None = None,
        results: Path | None = None, show_warnings: bool = False, scope: Scope | None = None) -> MutationResult:
    """Judge every mutant: locally (`jobs` at once) or on a Dask cluster (`dask`). With `results`,
    each judged mutant is appended to that CSV file as it finishes, and mutants already there
    (from an interrupted run of the same campaign) are not judged again. With show_warnings, each
    warning and note goes to stderr as soon as it is known. `scope` (scope.py): only the mutants it
    holds are judged (all are built)."""
    from .operators import OPERATORS
    backend = get_backend(backend_name)
    ops = operators or list(OPERATORS)
    t0 = time.monotonic()
    with temp_dir(prefix="cltc-mut-") as tmp:
        planner, exclude, dropped, _ = plan_schemata(suite, backend, Path(tmp), ops)
    mutants, left_out = select(scope, planner.mutants)
    suppressed = Suppressed(CLTC_IGNORE)
    ignored = {m.id: MutantOutcome(m, Status.IGNORED, reason="its line is marked `cltc: ignore`")
               for m in mutants if suppressed(m.file, m.line)}
    if scope is not None and not mutants:   # (--since with nothing changed): nothing to build or run
        return MutationResult(str(suite.root), backend.name, runs, ops, [], [], [], 0, time.monotonic() - t0, 0.0,
                              out_of_scope=left_out, scope=scope.describe())
    journal = MutantJournal(results, fingerprint(suite, backend.name, runs, planner.keys.host)) if results else None
    earlier = journal.finished(mutants) if journal else {}
    build = HostBuild("schemata", build_planned, (suite, backend, tuple(ops), frozenset(exclude),
                                                  plan_digest(planner.mutants)))
    executor = open_executor(dask, jobs, backend.name)
    outcomes: dict[int, MutantOutcome] = {**earlier, **ignored}
    try:
        with Campaign(executor, "mutate") as campaign:
            refs: list[Reference | None] = [None] * len(suite.tests)
            warnings = Warnings("cltc", show_warnings)
            ref_tasks = [Task(str(i), _reference, (backend, suite, test), build) for i, test in enumerate(suite.tests)]
            for d in campaign.run(ref_tasks):
                if not d.ok:
                    raise UserError(d.error)
                refs[int(d.key)], built_warnings = d.value
                warnings.add(*built_warnings, refs[int(d.key)].note)
            build_s = time.monotonic() - t0
            t0 = time.monotonic()
            todo = [m for m in mutants if m.id not in earlier and m.id not in ignored]
            if earlier and show_warnings:
                print(f"cltc: {len(earlier)} mutants already judged in {results}; judging the other {len(todo)}",
                      file=sys.stderr)
            by_id = {m.id: m for m in todo}
            tasks = [Task(str(m.id), _judge_mutant, (backend, suite, refs, m, runs), build) for m in todo]
            for d in campaign.shown(tasks, "cltc mutate", progress, "mutants"):
                judged(d, by_id, outcomes, journal)
            judge_s = time.monotonic() - t0
            stats = campaign.stats
    finally:
        executor.close()
        if journal:
            journal.close()
    dropped = [m for m in dropped if scope is None or scope(m)]
    return MutationResult(str(suite.root), backend.name, runs, ops, [outcomes[m.id] for m in mutants], refs,
                          dropped, 0, build_s, judge_s, list(warnings), stats,
                          out_of_scope=left_out, scope=scope.describe() if scope else "")


def _reference(built: BuildOutcome, backend: Backend, suite: Suite, test: TestCase):
    """The original program under one test (mutant 0), with the mutation sites it reaches.
    Returns (Reference, the build's warnings)."""
    if built.error is not None:
        raise UserError(built.error)
    exe, warnings = built.value
    with temp_dir(prefix="cltc-ref-") as tmp:
        log = Path(tmp) / "reach.json"
        obs = run_test(backend, exe, suite, test, env={Env.CLTC_MUTANT: "0", Env.CLTC_MUT_REACH: str(log)})
        reached = ({r.site for r in logs.read_complete(log, REACH_LOG, "the reached-sites log")["reached"]}
                   if log.is_file() else set())
    v = judge(test, obs)
    note = ""
    if obs.timed_out or obs.fault or obs.exit_code < 0:
        raise UserError(f"test '{test.name}' fails on the original program: {v.reason}",
                        hint="mutants are judged against a working original; fix the test or the program")
    if not v.passed:
        note = (f"test '{test.name}' fails on the original program ({v.reason}); "
                "its mutants are judged against the original's output instead")
        test = (replace(test, pytest=False, stdout=obs.stdout, exit_code=obs.exit_code) if test.pytest
                else replace(test, stdout=None, output_files={}, exit_code=obs.exit_code))
    if not test.has_expectation:
        # no stated expectation: the original's output is the expectation
        test = replace(test, stdout=obs.stdout, exit_code=obs.exit_code)
    return Reference(test, obs, reached, note), warnings


def _judge_mutant(built: BuildOutcome, backend: Backend, suite: Suite, refs: list[Reference], m: Mutant,
                  runs: int) -> MutantOutcome:
    if built.error is not None:
        raise UserError(built.error)
    exe = built.value[0]
    covering = [r for r in refs if m.site in r.reached]
    out = MutantOutcome(m, Status.NO_COVERAGE, covered_by=[r.test.name for r in covering])
    if not covering:
        out.reason = "no test reaches it"
        return out
    partial = False
    for ref in covering:
        limit = min(ref.test.timeout, max(5.0, 10 * ref.obs.wall_s))

        def once(r: int, ref=ref, limit=limit) -> tuple[bool, bool, str]:
            obs = run_test(backend, exe, suite, ref.test, env={Env.CLTC_MUTANT: str(m.id), **run_env(backend, r)},
                           timeout=limit)
            v = judge(ref.test, obs)
            return not v.passed, obs.timed_out, v.reason
        tally = repeat(once, runs)
        out.kills[ref.test.name] = [tally.killed, tally.runs]
        status = tally.status(runs)
        if status is not None:
            out.status = status
            out.killed_by = [ref.test.name]
            out.reason = f"{ref.test.name}: {tally.reason}"
            return out
        if tally.killed:
            partial = True
            out.reason = out.reason or f"{ref.test.name}: killed in {tally.killed} of {tally.runs} runs ({tally.reason})"
    out.status = Status.UNDECIDED if partial else Status.SURVIVED
    if not partial:
        out.reason = f"survived {runs} runs of {len(covering)} test(s)"
    return out
