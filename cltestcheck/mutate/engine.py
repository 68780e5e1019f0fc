"""cltc mutate: plan schemata -> check they parse -> build once -> reference runs -> judge mutants."""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from instrument.backends import Backend, BuildRequest, get_backend
from instrument.errors import UserError
from instrument.parse import error_diagnostics
from instrument.pipeline import instrument_sources
from instrument.schedule_points import schedule_points
from instrument.parallel import parallel_map
from instrument.progress import Progress
from runtime import include_dir

from ..build import build_kernels
from ..execute import run_test
from ..judge import Observed, judge
from ..suite import Suite, TestCase
from .planner import Mutant, MutationPlanner

MAX_PARSE_ROUNDS = 6


@dataclass
class MutantOutcome:
    mutant: Mutant
    status: str                    # killed | timeout | undecided | survived | no-coverage
    reason: str = ""
    killed_by: list[str] = field(default_factory=list)
    covered_by: list[str] = field(default_factory=list)
    kills: dict[str, list[int]] = field(default_factory=dict)   # test -> [runs that killed, runs]


@dataclass
class Reference:
    test: TestCase                 # as judged (expectations dropped when the original fails them)
    obs: Observed
    reached: set[int]
    note: str = ""


@dataclass
class MutationResult:
    suite: str
    backend: str
    runs: int
    operators: list[str]
    outcomes: list[MutantOutcome]
    references: list[Reference]
    not_compilable: list[Mutant] = field(default_factory=list)
    separate_builds: int = 0
    build_s: float = 0.0
    judge_s: float = 0.0
    warnings: list[str] = field(default_factory=list)


@dataclass
class Schemata:
    exe: Path
    planner: MutationPlanner
    dropped: list[Mutant]
    warnings: list[str]


def build_schemata(suite: Suite, backend: Backend, work: Path, operators: list[str]) -> Schemata:
    """Plan every mutant, drop those whose lines do not parse, build once."""
    exclude: set[tuple[str, int]] = set()
    dropped: list[Mutant] = []
    lower = getattr(backend, "needs_lowering", False)
    planner = None
    for _ in range(MAX_PARSE_ROUNDS):
        planner = MutationPlanner(operators, exclude)
        srcs, incs, _, warnings = instrument_sources(suite.sources, work / "check", [planner],
                                                     suite.include, suite.defines)
        defines = list(suite.defines) + [f"CLTC_MUT_SITES={max(1, planner.sites)}"]
        errors = []
        for s in srcs:
            errors += error_diagnostics(s, list(incs) + [include_dir()], defines)
        if not errors:
            break
        bad = {(f, line) for f, line, _ in errors}
        new = [m for m in planner.mutants if (m.file, m.line) in bad]
        if not new:
            f, line, msg = errors[0]
            raise UserError(f"{f}:{line}: error: {msg}", hint="the program does not parse before mutation either")
        dropped += new
        exclude |= bad
    else:
        raise UserError("mutant schemata still do not parse after dropping the failing lines")
    planner = MutationPlanner(operators, exclude)
    if suite.is_pytest:
        exe = build_kernels(suite, backend, work / "mutants", [planner],
                            lambda: [f"CLTC_MUT_SITES={max(1, planner.sites)}"], [schedule_points])
        return Schemata(exe, planner, dropped, [])
    planners = ([schedule_points] if lower else []) + [planner]
    srcs, incs, _, warnings = instrument_sources(suite.sources, work / "src", planners, suite.include,
                                                 suite.defines, lower_cpu=lower)
    exe = backend.build(BuildRequest(list(srcs), work / "mutants", list(incs) + [include_dir()],
                                     list(suite.defines) + [f"CLTC_MUT_SITES={max(1, planner.sites)}"],
                                     list(suite.flags)))
    return Schemata(exe, planner, dropped, warnings)


def _env(backend: Backend, run: int) -> dict:
    if backend.name != "cpu" or run == 0:
        return {}
    return {"CUDAEMU_SEED": str(run), "CUDAEMU_BLOCK_ORDER": "random"}


def run(suite: Suite, backend_name: str = "auto", operators: list[str] | None = None, runs: int = 20,
        jobs: int = 1, progress: bool = True) -> MutationResult:
    import time
    from .operators import OPERATORS
    backend = get_backend(backend_name)
    ops = operators or list(OPERATORS)
    with tempfile.TemporaryDirectory(prefix="cltc-mut-") as tmp:
        work = Path(tmp)
        t0 = time.monotonic()
        sch = build_schemata(suite, backend, work, ops)
        build_s = time.monotonic() - t0
        t0 = time.monotonic()
        refs = _references(suite, backend, sch.exe, work, jobs)
        bar = Progress(len(sch.planner.mutants), "mutants", enabled=progress)
        try:
            outcomes = parallel_map(lambda m: _judge_mutant(suite, backend, sch.exe, refs, m, runs),
                                    sch.planner.mutants, jobs, bar.step)
        finally:
            bar.close()
        judge_s = time.monotonic() - t0
    warnings = sch.warnings + [r.note for r in refs if r.note]
    return MutationResult(str(suite.root), backend.name, runs, ops, outcomes, refs, sch.dropped, 0,
                          build_s, judge_s, warnings)


def _references(suite: Suite, backend: Backend, exe: Path, work: Path, jobs: int) -> list[Reference]:
    def one(i_test):
        i, test = i_test
        log = work / f"reach-{i}.json"
        obs = run_test(backend, exe, suite, test, env={"CLTC_MUTANT": "0", "CLTC_MUT_REACH": str(log)})
        reached = set(json.loads(log.read_text())["reached"]) if log.is_file() else set()
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
        return Reference(test, obs, reached, note)
    return parallel_map(one, list(enumerate(suite.tests)), jobs)


def _judge_mutant(suite: Suite, backend: Backend, exe: Path, refs: list[Reference], m: Mutant,
                  runs: int) -> MutantOutcome:
    covering = [r for r in refs if m.site in r.reached]
    out = MutantOutcome(m, "no-coverage", covered_by=[r.test.name for r in covering])
    if not covering:
        out.reason = "no test reaches it"
        return out
    partial = False
    for ref in covering:
        limit = min(ref.test.timeout, max(5.0, 10 * ref.obs.wall_s))
        killed, reason, timeouts = 0, "", 0
        for r in range(runs):
            env = {"CLTC_MUTANT": str(m.id), **_env(backend, r)}
            obs = run_test(backend, exe, suite, ref.test, env=env, timeout=limit)
            v = judge(ref.test, obs)
            if not v.passed:
                killed += 1
                timeouts += obs.timed_out
                reason = reason or v.reason
            if killed and killed <= r:      # killed in some runs, not in others: undecided here
                break
        out.kills[ref.test.name] = [killed, r + 1]
        if killed == r + 1 and r + 1 == runs:
            out.status = "timeout" if timeouts == runs else "killed"
            out.killed_by = [ref.test.name]
            out.reason = f"{ref.test.name}: {reason}"
            return out
        if killed:
            partial = True
            out.reason = out.reason or f"{ref.test.name}: killed in {killed} of {r + 1} runs ({reason})"
    out.status = "undecided" if partial else "survived"
    if not partial:
        out.reason = f"survived {runs} runs of {len(covering)} test(s)"
    return out

