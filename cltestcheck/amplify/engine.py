"""cltc amplify: build with the schedule gate -> reference run -> every test under every schedule."""
from __future__ import annotations

import json
import tempfile
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from instrument.backends import get_backend
from instrument.parallel import parallel_map
from instrument.progress import Progress

from ..build import build_instrumented
from ..execute import run_test
from ..judge import Observed
from ..suite import Suite
from . import schedules as sched_mod
from .planner import SchedulePlanner


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

    @property
    def unstable(self) -> list[TestAmplification]:
        return [t for t in self.tests if t.verdict != "stable"]


def _abridge(o: Observed) -> str:
    if o.timed_out:
        return "(hang: timed out)"
    head = o.stdout if len(o.stdout) <= 200 else o.stdout[:200] + "..."
    if o.fault:
        return f"(stopped: {o.fault}) {head}"
    return head if o.exit_code == 0 else f"(exit {o.exit_code}) {head}"


def run(suite: Suite, backend_name: str = "auto", runs: int = 20, family: str = "all", seed: int = 0,
        jobs: int = 1, progress: bool = True, timeout: float | None = None) -> AmplifyResult:
    backend = get_backend(backend_name)
    cpu = backend.name == "cpu"
    planner = SchedulePlanner(gate=not cpu)
    per_schedule = 1 if cpu else runs
    warnings = []
    if cpu and runs > 1:
        warnings.append(f"cpu backend: block order is deterministic for a given schedule, so each schedule "
                        f"runs once (not {runs} times)")
    with tempfile.TemporaryDirectory(prefix="cltc-amp-") as tmp:
        work = Path(tmp)
        exe, _, w = build_instrumented(suite, backend, work, [planner], name="gated")
        warnings += w

        def reference(test):
            log = work / f"ref-{test.name}.json"
            # the reference is the ascending serial schedule: deterministic on both backends
            env = {"CLTC_SCHEDULE": "asc", "CLTC_SCHED_LOG": str(log), **(sched_mod.cpu_env("asc") if cpu else {})}
            obs = run_test(backend, exe, suite, test, env=env)
            blocks = max(json.loads(log.read_text())["launch_blocks"] or [1]) if log.is_file() else 1
            return obs, blocks

        refs = parallel_map(reference, suite.tests, jobs)
        plans = []
        for test, (obs, blocks) in zip(suite.tests, refs):
            for spec in sched_mod.make(family, blocks, seed):
                for r in range(per_schedule):
                    plans.append((test, spec, r))
        bar = Progress(len(plans), "schedules", enabled=progress)

        def one(item):
            test, spec, r = item
            env = {"CLTC_SCHEDULE": spec, **(sched_mod.cpu_env(spec) if cpu else {})}
            ref_obs = refs[suite.tests.index(test)][0]
            limit = timeout or min(test.timeout, max(10.0, 20 * ref_obs.wall_s))
            return run_test(backend, exe, suite, test, env=env, timeout=limit)

        try:
            observed = parallel_map(one, plans, jobs, bar.step)
        finally:
            bar.close()
    tests = []
    for test, (ref_obs, blocks) in zip(suite.tests, refs):
        sigs: OrderedDict = OrderedDict([(ref_obs.signature(), 0)])
        texts = [_abridge(ref_obs)]
        by_spec: OrderedDict[str, ScheduleRuns] = OrderedDict()
        for (t, spec, _), obs in zip(plans, observed):
            if t is not test:
                continue
            sr = by_spec.setdefault(spec, ScheduleRuns(spec))
            sr.runs += 1
            if obs.timed_out:
                sr.hangs += 1
                continue
            sig = obs.signature()
            if sig not in sigs:
                sigs[sig] = len(sigs)
                texts.append(_abridge(obs))
            sr.outputs[sigs[sig]] += 1
        hang = any(s.hangs for s in by_spec.values())
        dep = len(sigs) > 1
        verdict = "hangs" if hang else "schedule-dependent" if dep else "stable"
        tests.append(TestAmplification(test.name, verdict, texts[0], texts, list(by_spec.values()), blocks))
    return AmplifyResult(str(suite.root), backend.name, family, seed, per_schedule, tests, warnings)
