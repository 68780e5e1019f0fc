"""Build a suite's program, plain or instrumented by a planner, for one backend."""
from __future__ import annotations

from pathlib import Path

from instrument.backends import Backend, BuildRequest
from instrument.pipeline import Instrumented, Planner, instrument_sources
from runtime import include_dir

from .suite import Suite


def build_plain(suite: Suite, backend: Backend, work: Path, name: str = "plain") -> Path:
    """The program as the user wrote it (lowered for the cpu backend when it needs that)."""
    return build_instrumented(suite, backend, work, [], name=name)[0]


def build_instrumented(suite: Suite, backend: Backend, work: Path, planners: list[Planner],
                       defines_after=None, name: str = "prog", opt: str = "-O2"):
    """Instrument with `planners`, then build. `defines_after()` gives -D values that
    depend on the planning (site counts). Returns (exe, programs, warnings)."""
    work = Path(work)
    if suite.is_pytest:
        return build_kernels(suite, backend, work / name, planners, defines_after), [], []
    lower = backend.needs_lowering
    if not planners and not lower:   # the sources as they are
        ins = Instrumented(list(suite.sources), list(suite.include), [], [])
    else:
        ins = instrument_sources(suite.sources, work / f"src-{name}", planners, suite.include, suite.defines,
                                 lower_cpu=lower)
    defines = list(suite.defines) + (list(defines_after()) if defines_after else [])
    exe = backend.build(BuildRequest(list(ins.sources), work / name, list(ins.include_dirs) + [include_dir()], defines,
                                     list(suite.flags), opt=opt))
    return exe, ins.programs, ins.warnings


def build_kernels(suite: Suite, backend: Backend, out: Path, planners: list[Planner],
                  defines_after=None, extra_planners_cpu: list[Planner] = ()) -> Path:
    """A pytest suite's kernel sources as one kernel library; returns its manifest."""
    from instrument.kernel_lib.build import build_library
    tools = sorted({getattr(p, "tool", "") for p in planners} - {""})
    cpu = backend.name == "cpu"
    return build_library(suite.sources, backend, out, (list(extra_planners_cpu) if cpu else []) + list(planners),
                         suite.include, suite.defines, defines_after, suite.flags, tools)
