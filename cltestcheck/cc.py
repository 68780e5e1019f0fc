"""`cltc-cc`: cltc's compiler launcher (instrument/compile/launcher.py) for CMake and Make projects.

    cmake -DCMAKE_CUDA_COMPILER_LAUNCHER=cltc-cc ...
    make NVCC="cltc-cc nvcc"

What each CUDA unit gets is the build's mode, read from the environment as the backend is
(CLTC_BACKEND=cpu builds for the cpu backend):

- CLTC_MODE=coverage (the default): coverage counters with the unit's own item table
  (cltestcheck/coverage/planner.py unit_mode); at exit the program writes its counters with the
  tables to `CLTC_COV_LOG_DIR`, which `cltc coverage -- COMMAND` sets. CLTC_COUNT_EXECUTIONS=1
  counts the threads that pass each item instead of setting a flag (`--count-executions`).
- CLTC_MODE=mutate: mutant schemata with the unit's own mutant table (cltestcheck/mutate/planner.py
  unit_mode; lines whose mutants do not parse dropped first, mutate/schemata.py); `CLTC_MUTANT`
  picks one by its stable id at run time, and `cltc mutate -- COMMAND` runs the command once per mutant.
- CLTC_MODE=amplify: the schedule gate (cltestcheck/amplify/planner.py); `CLTC_SCHEDULE` imposes a
  block order at run time, and `cltc amplify -- COMMAND` runs the command under each.
"""
from __future__ import annotations

import os
import sys
from functools import partial
from pathlib import Path

from instrument.cli_support import run_main
from instrument.errors import UserError

BACKEND_VARIABLE = "CLTC_BACKEND"
MODE_VARIABLE = "CLTC_MODE"
COUNT_VARIABLE = "CLTC_COUNT_EXECUTIONS"
MODES = {"coverage": "coverage counters (cltc coverage -- COMMAND)",
         "mutate": "mutant schemata (cltc mutate -- COMMAND)",
         "amplify": "the block-schedule gate (cltc amplify -- COMMAND)"}


def build_mode() -> tuple[str, bool]:
    """The mode this build's environment asks for, and whether coverage counts executions."""
    mode = os.environ.get(MODE_VARIABLE, "") or "coverage"
    if mode not in MODES:
        raise UserError(f"{MODE_VARIABLE}={mode}: cltc-cc builds for " + "; ".join(f"{MODE_VARIABLE}={k}: {v}"
                                                                            for k, v in MODES.items()))
    count = os.environ.get(COUNT_VARIABLE, "") or "0"
    if count not in ("0", "1"):
        raise UserError(f"{COUNT_VARIABLE}={count}: 1 counts executions, 0 (or unset) records flags")
    if count == "1" and mode != "coverage":
        raise UserError(f"{COUNT_VARIABLE}=1 with {MODE_VARIABLE}={mode}: counts of executions are coverage's; "
                        f"unset {COUNT_VARIABLE}, or build with {MODE_VARIABLE}=coverage")
    return mode, count == "1"


def _planner(mode: str, count: bool, lower_cpu: bool, source: Path):
    """cltc's planner for one unit in the build's mode."""
    if mode == "mutate":
        from .mutate.operators import OPERATORS
        from .mutate.planner import MutationPlanner
        return MutationPlanner(list(OPERATORS), unit_mode=True)
    if mode == "amplify":
        from .amplify.planner import SchedulePlanner
        return SchedulePlanner(gate=not lower_cpu)   # (the cpu backend orders blocks itself)
    from .coverage.planner import CoveragePlanner
    return CoveragePlanner(count_executions=count, unit_mode=True)


def _without_unparsable(planner, errors):
    """Mutant schemata: the unit planned again without the lines whose mutants do not parse; its
    other errors are the compiler's to judge (it reads the unit with the line's every option)."""
    from .mutate.planner import MutationPlanner
    from .mutate.schemata import drop_unparsable
    ops = sorted(planner.operators)
    _, exclude, dropped = drop_unparsable(lambda ex, dr: MutationPlanner(ops, ex, unit_mode=True, dropped=dr), errors,
                                          other_errors="accept")
    return MutationPlanner(ops, exclude, unit_mode=True, dropped=dropped)


def tool():
    """cltc's Tool for the launcher, in the build's mode."""
    from instrument.compile import launcher
    mode, count = build_mode()
    from instrument.frontend.schedule_points import schedule_points
    mutate = mode == "mutate"   # (on the cpu backend a mutant's later runs switch threads as the suite's do)
    return launcher.Tool("cltc-cc", BACKEND_VARIABLE, partial(_planner, mode, count),
                         checked=_without_unparsable if mutate else None,
                         cpu_planners=(schedule_points,) if mutate else ())


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from instrument.compile import launcher
    return run_main("cltc-cc", lambda: launcher.main(tool(), args))


if __name__ == "__main__":
    sys.exit(main())
