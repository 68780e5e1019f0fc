"""A planner that lets the cpu backend's seeded scheduler switch threads at every
device memory access (cltc uses it for schedule-dependent outcomes; tests use it
to show that a seed reproduces a run)."""
from __future__ import annotations

from .query import Program
from .rewrite import EditPlan


def schedule_points(prog: Program, plan: EditPlan) -> None:
    reach = prog.device_reachable()
    for a in prog.accesses:
        if a.function in reach:
            plan.wrap(a.span, "(*::cudaemu::yield_at(&(", ")))",
                      f"schedule point at {a.text} ({a.span.where()})")
