"""The selftest's oracles, checked on a batch of generated programs built as one translation unit
(so that the compiler's fixed cost is paid once per batch, not once per program).

  schedules       the plain build prints the same checksum on every run (cpu: under several
                  schedule seeds; gpu: repeated runs)
  hirace          hirace reports no race and the instrumented build prints the plain checksum
  coverage        cltc coverage instrumentation keeps the checksum
  schemata        cltc mutant schemata with no mutant active keep the checksum
  schedule-gate   cltc amplify's block-schedule instrumentation (descending order) keeps it
  barrier-race    with one phase barrier removed, hirace reports a race inside that phase
  emi-low/emi-high  EMI variants (dead racy blocks, always-true guards) built with no
                  optimisation and with full optimisation print the plain checksum
A build that fails for a batch is retried program by program, so that a failure names its seed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from instrument.backends import Backend
from instrument.errors import UserError
from instrument.compile import pipeline
from instrument.compile.pipeline import shared_parses

from cltestcheck.amplify.planner import SchedulePlanner
from cltestcheck.amplify.schedules import order_env
from cltestcheck.coverage.planner import CoveragePlanner
from cltestcheck.mutate.schemata import build_schemata
from cltestcheck.mutate.operators import OPERATORS as MUTATION_OPERATORS
from cltestcheck.suite import Suite
from hirace import runner
from hirace.config import Config
from instrument.protocol import Env

from .generate import Options, Program, assemble, generate

ORACLES = ("schedules", "hirace", "coverage", "schemata", "schedule-gate", "barrier-race", "emi-low", "emi-high")
DESCRIPTIONS = {
    "schedules": "plain program: one checksum under every schedule",
    "hirace": "hirace: no race reported, same checksum",
    "coverage": "coverage instrumentation: same checksum",
    "schemata": "mutant schemata, no mutant active: same checksum",
    "schedule-gate": "schedule instrumentation (descending): same checksum",
    "barrier-race": "one __syncthreads removed: race reported there",
    "emi-low": "EMI variant, unoptimised build: same checksum",
    "emi-high": "EMI variant, optimised build: same checksum",
}
_LINE = re.compile(r"^program (\d+) checksum ([0-9a-f]{16})$", re.M)


@dataclass
class BatchResult:
    # oracle -> seed -> "" (pass), "n/a", or why it failed
    outcome: dict[str, dict[int, str]] = field(default_factory=dict)

    def set(self, oracle: str, seed: int, why: str) -> None:
        self.outcome.setdefault(oracle, {})[seed] = why


def _flags(backend: Backend) -> list[str]:
    # no fused multiply-add: instrumentation may change where nvcc contracts a*b+c, which
    # changes float results legitimately; the oracles compare bits
    # (cpu: no debug information, which only slows the compiler down on these large units)
    return ["-fmad=false"] if backend.real_device else ["-g0"]


def _checksums(stdout: str) -> dict[int, str]:
    return {int(s): c for s, c in _LINE.findall(stdout)}


def _run(backend: Backend, exe: Path, timeout: float, env: dict | None = None, cwd: Path | None = None):
    res = backend.run(exe, (), env=env, timeout=timeout, cwd=cwd)
    why = ""
    if res.timed_out:
        why = f"timed out after {timeout:g}s"
    elif res.returncode != 0:
        tail = [ln for ln in (res.stderr or "").splitlines() if ln.strip()][-1:]
        why = f"{res.describe_failure()}" + (f": {tail[0][:160]}" if tail else "")
    return _checksums(res.stdout), why


class Checker:
    def __init__(self, backend: Backend, opts: Options, timeout: float = 120.0, schedule_seeds=(1, 2)):
        self.backend = backend
        self.opts = opts
        self.timeout = timeout
        self.schedule_seeds = schedule_seeds
        self.cpu = backend.needs_lowering

    # ---------------------------------------------------------------- builds
    def _write(self, work: Path, name: str, text: str) -> Path:
        """One file per distinct text, so that every build of it shares one parse."""
        work.mkdir(parents=True, exist_ok=True)
        known = getattr(self, "_sources", {})
        if (work, text) in known:
            return known[(work, text)]
        path = work / f"{name}.cu"
        path.write_text(text)
        known[(work, text)] = path
        self._sources = known
        return path

    def _build(self, kind: str, src: Path, work: Path):
        """(exe, extra env, planner-or-None) for a build kind."""
        b = self.backend
        flags = _flags(b)
        d = work / kind
        if kind in ("plain", "emi-high"):
            opt = "-O2" if self.cpu else "-O3"
            return pipeline.build([src], b, d, flags=flags, opt=opt if kind == "emi-high" else "-O2").exe, {}, None
        if kind == "emi-low":
            low = flags + ([] if self.cpu else ["-Xptxas", "-O0"])
            return pipeline.build([src], b, d, flags=low, opt="-O0").exe, {}, None
        if kind in ("hirace", "barrier-race"):
            built = runner.build([src], b, d, Config(), flags=flags)
            return built.exe, {}, built
        if kind == "coverage":
            exe = pipeline.build([src], b, d, [CoveragePlanner()], flags=flags).exe
            return exe, {Env.CLTC_COV_LOG: str(d / "cov.json")}, None
        if kind == "schemata":
            sch = build_schemata(Suite(root=work, sources=[src], flags=flags), b, d, list(MUTATION_OPERATORS))
            return sch.exe, {}, None
        if kind == "schedule-gate":
            exe = pipeline.build([src], b, d, [SchedulePlanner(gate=not self.cpu)], flags=flags).exe
            env = {Env.CLTC_SCHEDULE: "desc", **order_env(b, "desc")}
            return exe, env, None
        raise ValueError(kind)

    # ---------------------------------------------------------------- one batch
    def check(self, seeds: list[int], work: Path) -> BatchResult:
        work.mkdir(parents=True, exist_ok=True)
        programs = [generate(s, self.opts) for s in seeds]
        emi = [generate(s, self.opts, emi=True) for s in seeds]
        with shared_parses(limit=64):
            try:
                return self._check(programs, emi, work)
            finally:
                for key in [k for k in getattr(self, "_sources", {}) if k[0] == work]:
                    self._sources.pop(key, None)

    def _check(self, programs, emi, work) -> BatchResult:
        out = BatchResult()
        base_text, _ = assemble(programs)
        built = self._plain(programs, base_text, work, out)
        if built is None:
            return out
        exe, reference = built
        # 1: the plain program under other schedules
        runs = [{Env.CUDAEMU_SEED: str(k)} for k in self.schedule_seeds] if self.cpu else [None] * len(self.schedule_seeds)
        for env in runs:
            sums, why = _run(self.backend, exe, self.timeout, env)
            for p in programs:
                if p.seed not in sums:
                    out.set("schedules", p.seed, why or "no checksum printed")
                elif sums[p.seed] != reference.get(p.seed):
                    out.set("schedules", p.seed, f"checksum {sums[p.seed]} under {env or 'a rerun'}, "
                                                 f"{reference.get(p.seed)} before")
        for p in programs:
            out.outcome.setdefault("schedules", {}).setdefault(p.seed, "")
        # 2, 3: instrumented builds print the plain checksum (hirace: and no race)
        for kind in ("hirace", "coverage", "schemata", "schedule-gate"):
            self._compare(kind, programs, base_text, work, reference, out)
        # 4: a removed phase barrier is reported
        self._barrier_race(programs, work, out)
        # 5: EMI variants
        emi_text, _ = assemble(emi)
        for kind in ("emi-low", "emi-high"):
            self._compare(kind, emi, emi_text, work, reference, out)
        return out

    def _plain(self, programs, text, work, out):
        """(exe, seed -> checksum) of the plain build, or None when it does not build."""
        src = self._write(work, "plain", text)
        try:
            exe, env, _ = self._build("plain", src, work)
        except UserError as e:
            for p in programs:
                out.set("schedules", p.seed, f"the plain program does not build: {e.message}")
            return None
        sums, why = _run(self.backend, exe, self.timeout, env)
        for p in programs:
            if p.seed not in sums:
                out.set("schedules", p.seed, why or "no checksum printed")
        return exe, sums

    def _compare(self, kind, programs, text, work, reference, out):
        src = self._write(work, kind, text)
        try:
            exe, env, built = self._build(kind, src, work)
        except UserError as e:
            if len(programs) > 1:
                for p in programs:           # find which program breaks the build
                    self._compare(kind, [p], assemble([p])[0], work / f"one-{p.seed}", reference, out)
                return
            out.set(kind, programs[0].seed, f"build failed: {e.message}")
            return
        if built is not None:
            res, races = runner.execute(built, _config(), (), self.timeout, cwd=work)
            sums, why = _checksums(res.stdout), ("" if res.returncode == 0 and races is not None
                                                 else f"{res.describe_failure()} under hirace")
            reported = _races_by_program(races, text) if races is not None else {}
        else:
            sums, why = _run(self.backend, exe, self.timeout, env)
            reported = {}
        for p in programs:
            got = sums.get(p.seed)
            if got is None:
                out.set(kind, p.seed, why or "no checksum printed")
            elif got != reference.get(p.seed):
                out.set(kind, p.seed, f"checksum {got}, plain program {reference.get(p.seed)}")
            elif reported.get(p.seed):
                line = reported[p.seed][0]
                out.set(kind, p.seed, f"hirace reported {len(reported[p.seed])} race(s) in a race-free program, "
                                      f"first at line {line} of the program")
            else:
                out.set(kind, p.seed, "")

    def _barrier_race(self, programs, work, out):
        removable = [p for p in programs if p.phase_barriers]
        for p in programs:
            if not p.phase_barriers:
                out.set("barrier-race", p.seed, "n/a")
        if not removable:
            return
        removed = {p.seed: p.seed % p.phase_barriers for p in removable}
        text, where = assemble(removable, removed)
        src = self._write(work, "barrier-race", text)
        try:
            built = runner.build([src], self.backend, work / "barrier-race", _config(), flags=_flags(self.backend))
        except UserError as e:
            for p in removable:
                out.set("barrier-race", p.seed, f"build failed: {e.message}")
            return
        res, races = runner.execute(built, _config(), (), self.timeout, cwd=work)
        if races is None:
            for p in removable:
                out.set("barrier-race", p.seed, f"no hirace log: {res.describe_failure()}")
            return
        lines = [r.site.line for r in races.races]
        for p in removable:
            lo, hi = where[p.seed]
            hit = [ln for ln in lines if lo <= ln <= hi]
            out.set("barrier-race", p.seed, "" if hit else
                    f"no race reported in lines {lo}-{hi} after removing phase barrier {removed[p.seed]}")


def _config():
    return Config()


def _races_by_program(races, text: str) -> dict[int, list[int]]:
    """seed -> lines (within that program's namespace) of the races hirace reported."""
    starts = [(i + 1, int(m.group(1))) for i, line in enumerate(text.splitlines())
              for m in [re.match(r"namespace gp(\d+) \{", line)] if m]
    by: dict[int, list[int]] = {}
    for r in races.races:
        owner = None
        for first, seed in starts:
            if r.site.line >= first:
                owner = (seed, first)
        if owner:
            by.setdefault(owner[0], []).append(r.site.line - owner[1] + 1)
    return by


def program_files(seed: int, opts: Options) -> dict[str, str]:
    """What to save for a failing seed: the program and its EMI variant."""
    return {f"seed_{seed}.cu": generate(seed, opts).text, f"seed_{seed}_emi.cu": generate(seed, opts, emi=True).text}


__all__ = ["ORACLES", "DESCRIPTIONS", "Checker", "BatchResult", "program_files", "Program"]
