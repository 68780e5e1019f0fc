"""cltc amplify: build with the schedule gate (once per host) -> reference run -> every test under every
schedule; each run is one task of the execution layer."""
from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from instrument.backends import get_backend
from instrument.errors import UserError
from instrument.execution import BuildOutcome, Campaign, HostBuild, Task, open_executor
from instrument.progress import Warnings

from ..build import build_instrumented
from ..config import DEFAULTS
from ..execute import run_test
from ..observed import Observed
from ..suite import Suite
from . import schedules as sched_mod
from .planner import SchedulePlanner
from instrument.reaper import temp_dir
from instrument import logs
from instrument.protocol import SCHEDULE_LOG, Env


@dataclass
class ScheduleRuns:
    schedule: str
    outputs: Counter = field(default_factory=Counter)     # output id -> runs
    hangs: int = 0
    runs: int = 0


@dataclass
class TestAmplification:
    name: str
    verdict: str                     # stable | schedule-dependent | hangs
    reference: str                   # output id 0's text (abridged)
    outputs: list[str]               # output id -> abridged text
    schedules: list[ScheduleRuns]
    blocks: int

    def matching(self, s: ScheduleRuns) -> float:
        return s.outputs.get(0, 0) / s.runs if s.runs else 0.0


@dataclass
class AmplifyResult:
    suite: str
    backend: str
    family: str
    seed: int
    runs_per_schedule: int
    tests: list[TestAmplification]
    warnings: list[str] = field(default_factory=list)
    execution: object = None         # instrument.execution.Stats of the campaign
    command: str = ""                # `cltc amplify -- COMMAND`: the command, its outcome its exit status

    @property
    def unstable(self) -> list[TestAmplification]:
        return [t for t in self.tests if t.verdict != "stable"]


def _abridge(o: Observed) -> str:
    if o.timed_out:
        return "(hang: timed out)"
    head = o.stdout.excerpt(200)
    if o.fault:
        return f"(stopped: {o.fault}) {head}"
    return head if o.exit_code == 0 else f"(exit {o.exit_code}) {head}"


def run(suite: Suite, backend_name: str = DEFAULTS["shared"]["backend"], runs: int = DEFAULTS["amplify"]["runs"],
        family: str = DEFAULTS["amplify"]["schedules"], seed: int = DEFAULTS["amplify"]["seed"],
        jobs: int = 1, progress: bool = True, timeout: float | None = None,
        dask: str | None = None, show_warnings: bool = False) -> AmplifyResult:
    backend = get_backend(backend_name)
    per_schedule = 1 if backend.orders_blocks else runs
    warnings = Warnings("cltc", show_warnings)   # on stderr as soon as known, with show_warnings
    if backend.orders_blocks and runs > 1:
        warnings.add(f"cpu backend: block order is deterministic for a given schedule, so each schedule "
                        f"runs once (not {runs} times)")
    build = HostBuild("gated", _build_gated, (suite, backend))
    executor = open_executor(dask, jobs, backend.name)
    try:
        with Campaign(executor, "amplify") as campaign:
            refs: list = [None] * len(suite.tests)
            ref_tasks = [Task(str(i), _reference, (backend, suite, test), build)
                         for i, test in enumerate(suite.tests)]
            for d in campaign.run(ref_tasks):
                if not d.ok:
                    raise UserError(d.error)
                obs, blocks, w = d.value
                refs[int(d.key)] = (obs, blocks)
                warnings.add(*w)
            plans, runs_of = [], []   # the tasks, and the (test, schedule) each one runs
            for test, (obs, blocks) in zip(suite.tests, refs):
                limit = timeout or min(test.timeout, max(10.0, 20 * obs.wall_s))
                for spec in sched_mod.make(family, blocks, seed):
                    for r in range(per_schedule):
                        plans.append(Task(str(len(plans)), _scheduled, (backend, suite, test, spec, limit), build))
                        runs_of.append((test, spec))
            observed: list = [None] * len(plans)
            for d in campaign.shown(plans, "cltc amplify", progress, "schedules"):
                if not d.ok:
                    raise UserError(d.error)
                observed[int(d.key)] = d.value
            stats = campaign.stats
    finally:
        executor.close()
    tests = [summarise(test.name, ref_obs, blocks, [(spec, obs) for (t, spec), obs in zip(runs_of, observed)
                                                    if t is test])
             for test, (ref_obs, blocks) in zip(suite.tests, refs)]
    return AmplifyResult(str(suite.root), backend.name, family, seed, per_schedule, tests, list(warnings), stats)


def summarise(name: str, ref_obs: Observed, blocks: int, runs: list[tuple[str, Observed]],
              describe=None) -> TestAmplification:
    """One test's verdict from its reference run and its runs under each schedule: the outcomes
    (Observed.signature) each schedule gave, and whether one hung. `describe` abridges an outcome
    for the report (default: its output)."""
    describe = describe or _abridge
    sigs: OrderedDict = OrderedDict([(ref_obs.signature(), 0)])
    texts = [describe(ref_obs)]
    by_spec: OrderedDict[str, ScheduleRuns] = OrderedDict()
    for spec, obs in runs:
        sr = by_spec.setdefault(spec, ScheduleRuns(spec))
        sr.runs += 1
        if obs.timed_out:
            sr.hangs += 1
            continue
        sig = obs.signature()
        if sig not in sigs:
            sigs[sig] = len(sigs)
            texts.append(describe(obs))
        sr.outputs[sigs[sig]] += 1
    hang = any(s.hangs for s in by_spec.values())
    verdict = "hangs" if hang else "schedule-dependent" if len(sigs) > 1 else "stable"
    return TestAmplification(name, verdict, texts[0], texts, list(by_spec.values()), blocks)


def _build_gated(work: Path, suite: Suite, backend):
    """The suite built with the schedule gate (shared by every run on a host): (exe, warnings)."""
    planner = SchedulePlanner(gate=not backend.orders_blocks)
    exe, _, warnings = build_instrumented(suite, backend, work, [planner], name="gated")
    return exe, warnings


def _reference(built: BuildOutcome, backend, suite: Suite, test):
    """The ascending serial schedule, deterministic on both backends: (Observed, most blocks of a launch, warnings)."""
    if built.error is not None:
        raise UserError(built.error)
    exe, warnings = built.value
    with temp_dir(prefix="cltc-amp-") as tmp:
        log = Path(tmp) / "ref.json"
        env = {Env.CLTC_SCHEDULE: "asc", Env.CLTC_SCHED_LOG: str(log),
               **sched_mod.order_env(backend, "asc")}
        obs = run_test(backend, exe, suite, test, env=env)
        launches = logs.read_complete(log, SCHEDULE_LOG, "the schedule log")["launch"] if log.is_file() else []
        blocks = max([r.blocks for r in launches] or [1])
    return obs, blocks, warnings


def _scheduled(built: BuildOutcome, backend, suite: Suite, test, spec: str, limit: float):
    if built.error is not None:
        raise UserError(built.error)
    env = {Env.CLTC_SCHEDULE: spec, **sched_mod.order_env(backend, spec)}
    return run_test(backend, built.value[0], suite, test, env=env, timeout=limit)
