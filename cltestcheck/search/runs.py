"""Run one input under coverage: the suite's program (or a pytest suite's kernel library) built once
with cltc coverage's planner and the distance planner (distance_planner.py), each input run as its
test runs (the suite's own runner: a program in a directory of its own holding the input's files,
inputs.py; a pytest node with the search's plugin giving its launches the input's values,
pytest_inputs.py), and what the run showed kept as an `Outcome` (what the journal stores and the
search decides by).

NaN and Inf are looked for where the run puts numbers: what a program prints, the files its test
declares it writes (`output_files`: text, or .npy arrays), and, in a pytest suite, the float arrays
its kernels wrote (NaN or Inf where the array held none before the launch)."""
from __future__ import annotations

import json
import os
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
from .pytest_inputs import INPUT_ENV, PLUGIN, RECORD_ENV

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
    where: dict[str, str] = field(default_factory=dict)   # nan / inf -> where the run first showed it
    launches: list[dict] = field(default_factory=list)    # a pytest seed's launches (pytest_inputs.py)
    loop_distances: dict[str, int] = field(default_factory=dict)   # a loop case's flag -> least distance to it

    @property
    def failed(self) -> str | None:
        """Why the run is no test (it timed out, crashed or was stopped), or None."""
        if self.timed_out:
            return "timed out"
        if self.fault:
            return self.fault if " wrote outside " in self.fault else f"stopped by the cpu backend: {self.fault}"
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


def file_specials(cap) -> list[str]:
    """nan and inf in a file the test wrote (a Captured of its bytes): a .npy array's float values, or
    the numbers of a text file; nothing in a binary file of no known layout."""
    if cap is None or cap.path is None and not cap.head:
        return []
    if cap.path is not None:
        with open(cap.path, "rb") as fh:
            magic = fh.read(6)
        if magic == b"\x93NUMPY":
            import numpy as np
            try:
                a = np.load(cap.path, allow_pickle=False)
            except (ValueError, OSError):
                return []
            if a.dtype.kind not in "fc":
                return []
            return [k for k, bad in (("inf", np.isinf(a).any()), ("nan", np.isnan(a).any())) if bad]
    try:
        return specials(cap)
    except UnicodeDecodeError:
        return []


def run_specials(obs, printed: bool = True) -> dict[str, str]:
    """nan / inf -> where the run showed it first: its output (`printed`: a program's; a pytest node's
    is pytest's summary), then the files it wrote."""
    where: dict[str, str] = {}
    for kind in specials(obs.stdout) if printed else []:
        where.setdefault(kind, "its output")
    for name, cap in sorted(obs.files.items()):
        for kind in file_specials(cap):
            where.setdefault(kind, f"the file it wrote, {name}")
    return where


def pytest_env(tmp: Path, record: Path | None, overrides: dict | None = None, dump: Path | None = None) -> dict:
    """The environment that loads the search's plugin into a pytest run (pytest_inputs.py): the
    launches recorded to `record`, the input's values given, the arguments dumped."""
    env = {"PYTEST_ADDOPTS": f"{os.environ.get('PYTEST_ADDOPTS', '')} -p {PLUGIN}".strip()}
    if record is not None:
        env[RECORD_ENV] = str(record)
    if overrides is not None:
        given = tmp / "input.json"
        given.write_text(json.dumps(overrides))
        env[INPUT_ENV] = str(given)
    if dump is not None:
        from .pytest_inputs import DUMP_ENV
        env[DUMP_ENV] = str(dump)
    return env


def pytest_overrides(inp: Input) -> dict:
    """The plugin's input file for a pytest input: its arguments and files named by their places
    (inputs.py `pytest_places`)."""
    from .inputs import parse_place
    scalars = [[*parse_place(name), value] for name, value in zip(inp.places, inp.args)]
    arrays = [[*parse_place(rel), data.decode("utf-8", "replace")] for rel, data in inp.files]
    return {"scalars": scalars, "arrays": arrays}


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

    def dump(self, test: TestCase, inp: Input, where: Path) -> Path | None:
        """A pytest input's launches written whole into `where` (pytest_inputs.py: for the test file
        the search writes); None when the run wrote none."""
        with temp_dir(prefix="cltc-search-") as tmp:
            tmp = Path(tmp)
            env = {Env.CUDAEMU_DEVICE_MB: str(DEVICE_MB), **pytest_env(tmp, None, pytest_overrides(inp), where)}
            measure(self.backend, self.exe, self.suite, test, tmp / "coverage.jsonl", env, test.timeout)
        return where if (where / "launches.json").is_file() else None

    def run(self, test: TestCase, inp: Input, timeout: float, generated: bool = True) -> Outcome:
        with temp_dir(prefix="cltc-search-") as tmp:
            tmp = Path(tmp)
            dist = tmp / "distances.jsonl"
            env = {Env.CLTC_SEARCH_LOG: str(dist)}
            if generated:
                env[Env.CUDAEMU_DEVICE_MB] = str(DEVICE_MB)
            record = tmp / "launches.json"
            if test.pytest:   # the node runs in the suite as it is; the plugin gives its launches the input
                s, case = self.suite, test
                env.update(pytest_env(tmp, record, pytest_overrides(inp) if generated else None))
            else:
                s, case = materialize(self.suite, test, inp, tmp / "in", test.name)
            tc, obs = measure(self.backend, self.exe, s, case, tmp / "coverage.jsonl", env, timeout)
            distances, loops = {}, {}
            if dist.is_file():
                read = logs.read_complete(dist, SEARCH_LOG, "the search's distance log")
                for r in read["cmp"]:
                    distances[str(r.flag)] = [r.to_true, r.to_false]
                for r in read["loop"]:
                    loops[str(r.flag)] = r.distance
            where = run_specials(obs, printed=not test.pytest)
            launches, failed = [], None
            if record.is_file():
                seen = json.loads(record.read_text())
                for f in seen["special"]:
                    where.setdefault(f["kind"], f"{f['param']}[{f['index']}] as kernel {f['kernel']} wrote it "
                                                f"(launch {f['launch']})")
                launches = [] if generated else seen["launches"]
                if seen.get("failed") and generated and not obs.fault:
                    failed = seen["failed"]
            return Outcome(sorted(keys_of(tc)), obs.exit_code, round(obs.wall_s, 3), tc.collected, obs.timed_out,
                           failed or obs.fault, sorted(where), distances, tc.divergences, obs.stdout.excerpt(160),
                           where, launches, loops)
