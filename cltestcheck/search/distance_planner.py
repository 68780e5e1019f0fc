"""The distance-guided search's instrumentation: each branch condition the coverage planner measured
that is one comparison of numbers (`a < b`, `x == 1234`, as an `if`'s or `?:`'s condition, or an
operand of `&&`/`||`) becomes `::cltc::search::lt(FLAG, a, b)` (runtime/include/cltc/search.h): the
same result, and on the cpu backend the least distance each run saw to either outcome, written at exit
to $CLTC_SEARCH_LOG by the coverage flag of the branch's true arm (FLAG; the false arm's is FLAG + 1).
A loop coverage measured whose condition is one such comparison (`k < rounds`, `stride < blockDim.x`)
becomes `::cltc::search::loop_lt(BASE, L.n, a, b)`, L the loop's coverage record (coverage/planner.py
`loop_var`): the least distance to each of its cases body 0 times, once and more than once, by the
case's flag.

It plans after the CoveragePlanner, over the same program and plan, and reads that planner's table
for the flags: a condition coverage did not measure gets no distance. Switches and conditions that are
not a single comparison (`!(a < b)`, `f(x)`, `a < b + c && d` as a whole) are not measured (their
operands of `&&`/`||` are, one by one), nor is a loop's case "ended by its condition"."""
from __future__ import annotations

from instrument.frontend.parse import Span
from instrument.frontend.query import Operator, Program
from instrument.frontend.rewrite import EditPlan

from ..coverage.planner import CoveragePlanner, _balanced, loop_var

HELPERS = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}
NUMBERS = ("int", "float")


class DistancePlanner:
    def __init__(self, coverage: CoveragePlanner) -> None:
        self.coverage = coverage
        self.measured: dict[int, str] = {}   # true arm's flag -> the comparison's text
        self.loops: dict[int, str] = {}      # a loop's base flag -> its condition's text

    def __call__(self, prog: Program, plan: EditPlan) -> None:
        if prog.unit.language == "host":
            return
        flags = {(b.kind, b.file, b.line, b.col): b.arms[0].flag for b in self.coverage.table.branches}
        comparisons = {(o.span.file, o.span.start, o.span.end): o for o in prog.operators
                       if o.arity == 2 and o.op in HELPERS and all(t in NUMBERS for t in o.types)}
        planned = False
        for b in prog.branches:
            if b.kind in ("if", "conditional") and b.cond is not None and b.plain_cond:
                conds = [(b.cond, flags.get((b.kind, b.span.file, b.span.line, b.span.col)))]
            elif b.kind in ("&&", "||"):
                conds = [(arm, flags.get(("condition", arm.file, arm.line, arm.col))) for arm in b.arms
                         if arm is not None]
            else:
                continue
            for cond, flag in conds:
                if flag is None or flag in self.measured:
                    continue
                op = comparisons.get(_unparenthesised(prog, cond))
                if op is not None and self._wrap(plan, op, flag):
                    self.measured[flag] = prog.unit.source(op.span.file).text(op.span.start, op.span.end)
                    planned = True
        bases = {(lp.file, lp.line, lp.col): lp.base for lp in self.coverage.table.loops}
        for lp in prog.loops:
            base = bases.get((lp.span.file, lp.span.line, lp.span.col))
            if base is None or base in self.loops or lp.cond is None or not lp.plain_cond:
                continue
            op = comparisons.get(_unparenthesised(prog, lp.cond))
            if op is not None and plan.wrap_replace(op.span, f"::cltc::search::loop_{HELPERS[op.op]}({base}u, "
                                                             f"{loop_var(base)}.n, ", ")", [(op.op_span, ", ")],
                                                    f"cltc search distance of the loop condition at {op.span.where()}"):
                self.loops[base] = prog.unit.source(op.span.file).text(op.span.start, op.span.end)
                planned = True
        if planned:
            plan.add_prelude(prog.unit.main, '#include "cltc/search.h"')

    @staticmethod
    def _wrap(plan: EditPlan, op: Operator, flag: int) -> bool:
        return plan.wrap_replace(op.span, f"::cltc::search::{HELPERS[op.op]}({flag}u, ", ")",
                                 [(op.op_span, ", ")], f"cltc search distance of {op.op} at {op.span.where()}")


def _unparenthesised(prog: Program, span: Span) -> tuple[str, int, int]:
    """(file, start, end) of span without the parentheses around all of it."""
    text = prog.unit.source(span.file).text(span.start, span.end)
    start, end = span.start, span.end
    while True:
        stripped = text.strip()
        start += len(text) - len(text.lstrip())
        end -= len(text) - len(text.rstrip())
        if not (stripped.startswith("(") and stripped.endswith(")") and _balanced(stripped[1:-1])):
            return span.file, start, end
        text = stripped[1:-1]
        start, end = start + 1, end - 1

