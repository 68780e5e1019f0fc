"""`cltc-cc`: cltc's compiler launcher (instrument/compile/launcher.py) for CMake and Make projects.

    cmake -DCMAKE_CUDA_COMPILER_LAUNCHER=cltc-cc -DCMAKE_CXX_COMPILER_LAUNCHER=cltc-cc ...
    make NVCC="cltc-cc nvcc"

Each CUDA unit gets coverage counters with its own item table (cltestcheck/coverage/planner.py
unit_mode); at exit the program writes its counters with the tables to `CLTC_COV_LOG_DIR`, which
`cltc coverage -- COMMAND` sets. CLTC_BACKEND=cpu builds for the cpu backend.
"""
from __future__ import annotations

import sys
from pathlib import Path

from instrument.compile import launcher
from instrument.cli_support import run_main

BACKEND_VARIABLE = "CLTC_BACKEND"


def _planner(lower_cpu: bool, source: Path):
    """cltc's coverage planner for one unit (flags, not counts: a build through the launcher is
    for the project's own tests, as they run)."""
    from .coverage.planner import CoveragePlanner
    return CoveragePlanner(unit_mode=True)


TOOL = launcher.Tool("cltc-cc", BACKEND_VARIABLE, _planner)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return run_main("cltc-cc", lambda: launcher.main(TOOL, args))


if __name__ == "__main__":
    sys.exit(main())
