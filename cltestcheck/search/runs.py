"""Run one input under coverage: the suite's program built once with cltc coverage's planner and the
distance planner (distance_planner.py), each input run as its test runs (the suite's own runner, in a
directory of its own: inputs.py), and what the run showed kept as an `Outcome` (what the journal
stores and the search decides by)."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from instrument import logs
from instrument.backends import Backend
from instrument.protocol import SEARCH_LOG, Env
from instrument.reaper import temp_dir

from ..build import build_instrumented
from ..coverage.engine import measure, suppressions
from ..coverage.planner import CoveragePlanner
from ..suite import Suite, TestCase
from .distance_planner import DistancePlanner
from .goals import keys_of
from .inputs import Input, materialize

# a number a program printed that is not one: nan, -nan, inf, -inf, infinity (C's printf, numpy, Python)
SPECIAL = re.compile(r"(?<![A-Za-z0-9_])[-+]?(nan|inf(?:inity)?)(?![A-Za-z0-9_])", re.IGNORECASE)
DEVICE_MB = 2048   # the emulated device's memory for a generated input (a size argument made huge fails fast)


@dataclass
class Outcome:
    keys: list[str]                     # coverage keys (goals.py)
    exit_code: int
    wall_s: float
    collected: bool = True              # the run wrote its coverage log
    timed_out: bool = False
    fault: str | None = None            # the cpu backend stopped it (deadlock, divergence, ...)
    special: list[str] = field(default_factory=list)   # nan / inf among what it printed
    distances: dict[str, list[int]] = field(default_factory=dict)   # true arm's flag -> [to true, to false]
    divergences: list[dict] = field(default_factory=list)
    stdout: str = ""                    # the beginning of what it printed

    @property
    def failed(self) -> str | None:
        """Why the run is no test (it timed out, crashed or was stopped), or None."""
        if self.timed_out:
            return "timed out"
        if self.fault:
            return f"stopped by the cpu backend: {self.fault}"
        if self.exit_code < 0:
            return f"killed by signal {-self.exit_code}"
        return None   # (a run that launched no kernel wrote no coverage: it reached nothing)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "Outcome":
        return cls(**d)


def specials(stdout) -> list[str]:
    """nan and inf, where the output (a Captured) prints them."""
    found = set()
    for chunk in stdout.chunks():
        found |= {m.group(1).lower()[:3] for m in SPECIAL.finditer(chunk)}
    return sorted(found)


class CoverageRunner:
    """The suite's program built for the search; `run` runs one input as a test runs its own."""

    def __init__(self, suite: Suite, backend: Backend, work: Path, cache: bool = False):
        self.suite, self.backend = suite, backend
        self.planner = CoveragePlanner()
        self.distance = DistancePlanner(self.planner)
        self.exe, _, self.warnings = build_instrumented(suite, backend, work, [self.planner, self.distance],
                                                        name="search", cache=cache)
        self.warnings = [*self.warnings, *self.planner.skipped]
        self.table = self.planner.table
        self.suppressed = suppressions(self.table)

    def run(self, test: TestCase, inp: Input, timeout: float, generated: bool = True) -> Outcome:
        with temp_dir(prefix="cltc-search-") as tmp:
            tmp = Path(tmp)
            s, case = materialize(self.suite, test, inp, tmp / "in", test.name)
            dist = tmp / "distances.jsonl"
            env = {Env.CLTC_SEARCH_LOG: str(dist)}
            if generated:
                env[Env.CUDAEMU_DEVICE_MB] = str(DEVICE_MB)
            tc, obs = measure(self.backend, self.exe, s, case, tmp / "coverage.jsonl", env, timeout)
            distances = {}
            if dist.is_file():
                for r in logs.read_complete(dist, SEARCH_LOG, "the search's distance log")["cmp"]:
                    distances[str(r.flag)] = [r.to_true, r.to_false]
            return Outcome(sorted(keys_of(tc)), obs.exit_code, round(obs.wall_s, 3), tc.collected, obs.timed_out,
                           obs.fault, specials(obs.stdout), distances, tc.divergences, obs.stdout.excerpt(160))
