"""Build a suite's program, plain or instrumented by planners, for one backend: the suite's kind
(program_suite.ProgramKind or pytest_suite.PytestKind) says how."""
from __future__ import annotations

from pathlib import Path

from instrument.backends import Backend
from instrument.compile.pipeline import Planner

from .suite import Suite


def build_plain(suite: Suite, backend: Backend, work: Path, name: str = "plain") -> Path:
    """The program as the user wrote it (lowered for the cpu backend when it needs that)."""
    return build_instrumented(suite, backend, work, [], name=name)[0]


def build_instrumented(suite: Suite, backend: Backend, work: Path, planners: list[Planner],
                       name: str = "prog", opt: str = "-O2", cpu_planners=(), cache: bool = False):
    """Instrument with `planners` (and `cpu_planners` where the backend lowers for the host
    compiler), then build with the planners' defines (`cache`: a program suite's build from the build
    cache when it holds it). Returns (exe, programs, warnings); a pytest suite's exe is its kernel
    library's manifest."""
    return suite.kind.build(suite, backend, Path(work), planners, name, opt, cpu_planners, cache)
