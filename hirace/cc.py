"""`hirace-cc`: hirace's compiler launcher (instrument/compile/launcher.py) for CMake and Make projects.

    cmake -DCMAKE_CUDA_COMPILER_LAUNCHER=hirace-cc -DCMAKE_CXX_COMPILER_LAUNCHER=hirace-cc ...
    make NVCC="hirace-cc nvcc"

Each CUDA unit is instrumented with its own site table (hirace/planner.py unit_mode); the program
reports by itself at exit, or to `hirace run -- COMMAND`. HIRACE_BACKEND=cpu builds for the cpu backend.
"""
from __future__ import annotations

import sys
from pathlib import Path

from instrument.compile import launcher
from instrument.cli_support import run_main

BACKEND_VARIABLE = "HIRACE_BACKEND"


def _planner(lower_cpu: bool, source: Path):
    """hirace's planner for one unit, with the configuration found from the unit's own directory up
    (a build directory elsewhere, as CMake's, has none); units built with different granularities stop
    the program when it starts (runtime units.h)."""
    from . import config as config_mod
    from .planner import HiracePlanner
    cfg = config_mod.load(config_mod.discover(source.resolve().parent))
    return HiracePlanner(cfg, lower_cpu=lower_cpu, unit_mode=True)


# host units that allocate device memory get the allocation hooks; the checks' registers are capped as
# hirace/runner.py builds (every block size stays launchable)
TOOL = launcher.Tool("hirace-cc", BACKEND_VARIABLE, _planner, host_units=launcher.ALLOCATES,
                     gpu_flags=("-maxrregcount=64",))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return run_main("hirace-cc", lambda: launcher.main(TOOL, args))


if __name__ == "__main__":
    sys.exit(main())
