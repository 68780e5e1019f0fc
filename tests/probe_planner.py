"""A stand-in instrumentation used by the engine tests: every device access goes
through probe() and every barrier through probe_bar(), like a real tool's would."""
from instrument.frontend.query import Program
from instrument.frontend.rewrite import EditPlan

PRELUDE = ("#ifndef PROBE_PLANNER_DEFS\n#define PROBE_PLANNER_DEFS\n"
           "template <class T> __host__ __device__ inline T *probe(T *p) { return p; }\n"
           "__host__ __device__ inline void probe_bar() {}\n#endif\n")


def probe_planner(prog: Program, plan: EditPlan) -> None:
    reach = prog.device_reachable()
    for a in prog.accesses:
        if a.function in reach and a.form == "address":   # (the address a load/store intrinsic is given)
            plan.wrap(a.span, "probe(", ")", f"probe {a.text} at {a.span.where()}")
        elif a.function in reach:
            plan.wrap(a.span, "(*probe(&(", ")))", f"probe {a.text} at {a.span.where()}")
    for b in prog.barriers:
        plan.wrap(b.span, "(probe_bar(), ", ")", f"probe_bar at {b.span.where()}")
    for f in prog.unit.files:
        plan.add_prelude(f, PRELUDE)
