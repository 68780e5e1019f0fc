"""Plan the schedule gate of one translation unit (GPU) or just the launch records (cpu).

GPU: every kernel starts with `::cltc::sched::Gate cltc_gate_;` and every
`blockIdx.c` in kernels and the device functions they call becomes
`::cltc::sched::block_idx().c`, the logical block id the gate assigned.
Both backends: launches are wrapped so the runtime knows each launch's grid.
Kernels that synchronise the whole grid (cooperative groups) are refused.
"""
from __future__ import annotations

from instrument.errors import UnsupportedConstruct
from instrument.frontend.query import Program
from instrument.frontend.rewrite import EditPlan

GRID_SYNC = ("this_grid", "grid_group", "cudaLaunchCooperativeKernel", "this_multi_grid")


class SchedulePlanner:
    tool = "amplify"      # what a kernel library built with it has compiled in

    def __init__(self, gate: bool):
        self.gate = gate
        self.kernels: list[str] = []

    def __call__(self, prog: Program, plan: EditPlan) -> None:
        unit = prog.unit
        for path in unit.user_files:
            src = unit.source(path) if path in unit.files else None
            if src is None:
                continue
            for t in src.tokens_in(0, len(src.data)):
                if t.spelling in GRID_SYNC:
                    line, col = src.line_col(t.offset)
                    raise UnsupportedConstruct(
                        f"{path}:{line}:{col}: '{t.spelling}': the kernel synchronises the whole grid; "
                        "forcing a block order would deadlock it, so cltc amplify refuses it",
                        hint="amplify the kernels that do not use grid-wide synchronisation (use --test), "
                             "or check this one with hirace")
        if unit.language == "host":   # no launches there, and no room for the device runtime
            return
        plan.add_prelude(unit.main, '#include "cltc/schedule.h"')
        live = prog.device_reachable()
        if self.gate:
            for r in prog.index_refs:
                if r.name == "blockIdx" and r.function in live:
                    plan.replace(r.span, f"::cltc::sched::block_idx().{r.component}",
                                 f"cltc logical block id at {r.span.where()}")
            for k in prog.kernels:
                if plan.insert(k.body, k.body.start + 1, " ::cltc::sched::Gate cltc_gate_;",
                               f"cltc schedule gate of {k.name}"):
                    self.kernels.append(k.name)
        for ls in prog.launches:
            s = unit.source(ls.span.file)
            grid = s.text(ls.config_args[0].start, ls.config_args[0].end)
            plan.wrap(ls.span, f"(::cltc::sched::host::before_launch(dim3({grid})), ", ")",
                      f"cltc schedule of the launch of {ls.kernel}")
