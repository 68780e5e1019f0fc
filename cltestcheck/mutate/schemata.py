"""cltc mutate's schemata: every mutant planned into one program (each active by its id at run
time), lines whose mutants do not parse dropped before any compiler runs, and one build."""
from __future__ import annotations

import hashlib
import socket
from dataclasses import dataclass
from pathlib import Path

from instrument.backends import Backend
from instrument.errors import UserError
from instrument.frontend.parse import error_diagnostics
from instrument.compile.pipeline import instrument_sources
from instrument.frontend.schedule_points import schedule_points
from runtime import include_dir

from ..build import build_instrumented
from ..suite import Suite
from .planner import Mutant, MutationPlanner

MAX_PARSE_ROUNDS = 6

@dataclass
class Schemata:
    exe: Path
    planner: MutationPlanner
    dropped: list[Mutant]
    warnings: list[str]


def plan_schemata(suite: Suite, backend: Backend, work: Path, operators: list[str]):
    """Plan every mutant and drop those whose lines do not parse (no compiler run).
    Returns (planner, excluded (file, line) set, dropped mutants, warnings)."""
    exclude: set[tuple[str, int]] = set()
    dropped: list[Mutant] = []
    warnings: list[str] = []
    for _ in range(MAX_PARSE_ROUNDS):
        planner = MutationPlanner(operators, exclude)
        instrumented = instrument_sources(suite.sources, work / "check", [planner],
                                          suite.include, suite.defines)
        srcs, incs, warnings = instrumented.sources, instrumented.include_dirs, instrumented.warnings
        defines = list(suite.defines) + planner.defines()
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
    return planner, exclude, dropped, warnings   # the planner of the round that parsed


def plan_digest(mutants: list[Mutant]) -> str:
    h = hashlib.sha256()
    for m in mutants:
        h.update(f"{m.id}:{m.site}:{m.file}:{m.start}:{m.end}:{m.replacement}\n".encode())
    return h.hexdigest()


def build_planned(work: Path, suite: Suite, backend: Backend, operators, exclude,
                  expect: str | None = None) -> tuple[Path, list[str]]:
    """Build the schemata of a plan (every mutant in one program): (program or kernel manifest, warnings).
    Deterministic, so each host of a campaign builds its own copy; `expect` (plan_digest of the
    mutants the campaign judges) catches a host whose parser plans differently."""
    planner = MutationPlanner(list(operators), set(exclude))
    built = _build(work, suite, backend, planner)
    if expect is not None and plan_digest(planner.mutants) != expect:
        raise UserError(f"this host ({socket.gethostname()}) plans other mutants than the machine that started "
                        "the campaign", hint="install the same toolkit and libclang versions on every host")
    return built


def _build(work: Path, suite: Suite, backend: Backend, planner: MutationPlanner) -> tuple[Path, list[str]]:
    # on the cpu backend a mutant's run may switch threads at the planned schedule points
    exe, _, warnings = build_instrumented(suite, backend, work, [planner], name="mutants",
                                          cpu_planners=[schedule_points])
    return exe, warnings


def build_schemata(suite: Suite, backend: Backend, work: Path, operators: list[str]) -> Schemata:
    """Plan every mutant, drop those whose lines do not parse, build once."""
    planner, exclude, dropped, _ = plan_schemata(suite, backend, work, operators)
    exe, warnings = build_planned(work, suite, backend, operators, exclude)
    return Schemata(exe, planner, dropped, warnings)
