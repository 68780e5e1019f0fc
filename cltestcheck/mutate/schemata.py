"""cltc mutate's schemata: every mutant planned into one program (each active by its id at run
time), lines whose mutants do not parse dropped before any compiler runs, and one build."""
from __future__ import annotations

import hashlib
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

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
    warnings: list[str] = []

    def errors_of(planner: MutationPlanner) -> list[tuple[str, int, str]]:
        instrumented = instrument_sources(suite.sources, work / "check", [planner], suite.include, suite.defines)
        warnings[:] = instrumented.warnings
        defines = list(suite.defines) + planner.defines()
        errors = []
        for s in instrumented.sources:
            errors += error_diagnostics(s, list(instrumented.include_dirs) + [include_dir()], defines)
        return errors
    planner, exclude, dropped = drop_unparsable(lambda exclude, _: MutationPlanner(operators, exclude), errors_of)
    return planner, exclude, dropped, warnings   # the planner of the round that parsed


def drop_unparsable(make: Callable[[set, list], MutationPlanner],
                    errors_of: Callable[[MutationPlanner], list[tuple[str, int, str]]],
                    other_errors: str = "refuse") -> tuple[MutationPlanner, set, list[Mutant]]:
    """Plan with `make(excluded lines, dropped mutants)`, ask `errors_of` for the errors (file, line,
    message) of the planned program, and plan again without the lines whose mutants do not parse,
    until none does. Errors on lines that hold no mutant are the program's own: refused (the program
    does not parse before mutation either), or, with other_errors="accept", left to the compiler
    (a unit of a project's build, whose compiler reads it with options the parse check lacks).
    Returns (the planner of the last round, the excluded (file, line) set, the dropped mutants)."""
    exclude: set[tuple[str, int]] = set()
    dropped: list[Mutant] = []
    for _ in range(MAX_PARSE_ROUNDS):
        planner = make(exclude, dropped)
        errors = user_lines(errors_of(planner))
        bad = {(f, line) for f, line, _ in errors}
        new = [m for m in planner.mutants if (m.file, m.line) in bad]
        if not new:
            if errors and other_errors != "accept":
                f, line, msg = errors[0]
                raise UserError(f"{f}:{line}: error: {msg}", hint="the program does not parse before mutation either")
            return planner, exclude, dropped
        dropped += new
        exclude |= {(m.file, m.line) for m in new}
    raise UserError("mutant schemata still do not parse after dropping the failing lines")


_LINE = re.compile(r'#line (\d+) "((?:[^"\\]|\\.)*)"')


def user_lines(errors: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """Errors as libclang names them (the written copy it read, and the line there) at the user's file
    and line that the copy's `#line` directives name (instrument/frontend/rewrite.py writes them)."""
    out, lines = [], {}
    for f, line, msg in errors:
        if f not in lines:
            try:
                lines[f] = Path(f).read_text(errors="surrogateescape").split("\n")
            except OSError:
                lines[f] = []
        text = lines[f]
        for n in range(min(line, len(text)) - 1, 0, -1):   # the last directive above the line
            m = _LINE.match(text[n - 1])
            if m:
                name = re.sub(r"\\([0-7]{3}|.)", lambda e: chr(int(e[1], 8)) if len(e[1]) == 3 else e[1], m[2])
                f, line = name, int(m[1]) + line - n - 1
                break
        out.append((f, line, msg))
    return out


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
