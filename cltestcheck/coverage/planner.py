"""Plan coverage edits for one translation unit (kernels and the device functions they call).

- `if (c)` -> `if (::cltc::cov::br(!!(c), THEN, ELSE))`: both arms, an absent else too;
  `c ? x : y` the same; each operand of `&&`/`||` that is not itself `&&`/`||`
  gets its true/false outcomes;
- `switch (x)` -> `switch (auto v = (x); ::cltc::cov::sw(v == (c1) ? F1 : ... : FOUT, v))`:
  the arm the switch dispatches to (fall-through into a case is not a dispatch);
- a loop becomes `{ ::cltc::cov::Loop L(F); for (...; L.test(!!(cond)); ...) { L.iter(); body } }`:
  per thread entry, the body ran 0 / 1 / more times, and whether the condition ended it;
- `__syncthreads()` -> `(::cltc::cov::arrive(B), __syncthreads())`, and kernels that
  reach a barrier start with a `BlockScope` whose destructor sorts the block's arrivals;
- every function entry sets a flag; launches and `cudaDeviceReset` call the host runtime.

In a kernel's own body (not in the device functions it calls, lambdas or local classes; not in a
kernel with inline assembly, whose `exit` would leave without running destructors) the items
note bits of a register mask instead (`br_in`, `sw_in`, `LoopIn`, `CLTC_COV_SYNC_IN` on the kernel's
`Seen`, declared first in the body), and the flags are written when the thread leaves the kernel:
no memory traffic inside the kernel. Counting builds (`count_executions`) keep the direct forms.

In `unit_mode` (one unit built by itself, through the compiler launcher cltc-cc: cltestcheck/cc.py)
the unit's items are numbered from 0, and its item table goes into its own text: a call at the end of
its main file registers the table (JSON) when the program starts, and the runtime gives the unit its
first ids among the program's (runtime/include/cltc/coverage.h, `register_this_unit`).
"""
from __future__ import annotations

import json
import re

from instrument.frontend import device_view
from instrument.frontend.api_launches import api_launches
from instrument.frontend.parse import Span
from instrument.frontend.query import Branch, Loop, Program
from instrument.protocol import SEEN_BARRIER_FLAG, SEEN_BITS, Macro, define
from instrument.errors import RewriteConflict
from instrument.frontend.rewrite import EditPlan

from ..unit_tables import c_strings, register_at_end
from .sites import LOOP_CASES, Arm, BarrierSite, BranchSite, FunctionSite, LoopSite, SiteTable

_CONSTANT_TRUE = {"true", "1", "1u", "(true)", "(1)"}


class CoveragePlanner:
    tool = "coverage"     # what a kernel library built with it has compiled in

    def __init__(self, count_executions: bool = False, unit_mode: bool = False) -> None:
        self.table = SiteTable()
        self.unit_mode = unit_mode   # one unit built by cltc-cc: its table in its own text (above)
        self.skipped: list[str] = []
        self._seen: set[tuple] = set()
        self.count_executions = count_executions   # counters instead of flags (coverage.h, CLTC_COV_COUNTS)
        # kernels whose items note bits of a Seen: body (file, start) -> the flag id of each bit
        self._seen_ids: dict[tuple, list[int]] = {}
        self._kernel_bodies: list[Span] = []
        self._nested: list[Span] = []

    # -- flags -------------------------------------------------------------
    def _alloc(self, n: int) -> int:
        base = self.table.flags
        self.table.flags += n
        return base

    def _release(self, base: int, n: int) -> None:
        if self.table.flags == base + n:
            self.table.flags = base

    # -- helpers -------------------------------------------------------------
    @staticmethod
    def _text(prog: Program, span: Span) -> str:
        return prog.unit.source(span.file).text(span.start, span.end)

    @staticmethod
    def _code_lines(prog: Program, span: Span | None) -> list[int]:
        """The lines of a branch arm that hold code (not blank, not only braces or a comment)."""
        if span is None:
            return []
        out = []
        for i, text in enumerate(prog.unit.source(span.file).text(span.start, span.end).split("\n")):
            code = text.split("//")[0].strip().strip("{}").strip()
            if code and not code.startswith(("/*", "*")) and code != "else":
                out.append(span.line + i)
        return out

    @staticmethod
    def _semi_after(prog: Program, span: Span) -> Span:
        """span extended over the `;` that ends a non-block statement."""
        t = prog.unit.source(span.file).token_at_or_after(span.end)
        if t is not None and t.spelling == ";":
            return Span(span.file, span.start, t.offset + 1, span.line, span.col, span.in_macro_arg)
        return span

    def _once(self, span: Span) -> bool:
        key = (span.file, span.start, span.end)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    # -- kernel-body items: bits of the kernel's Seen ------------------------------
    def _kernel_of(self, span: Span) -> tuple | None:
        """The kernel whose own body holds span (not a lambda or local class in it), if it has a Seen."""
        def inside(s: Span, outer: Span) -> bool:
            return s.file == outer.file and outer.start <= s.start and s.end <= outer.end
        if any(inside(span, n) for n in self._nested):
            return None
        for body in self._kernel_bodies:
            if inside(span, body):
                key = (body.file, body.start)
                return key if key in self._seen_ids else None
        return None

    def _take_bits(self, span: Span, ids: list[int]) -> int | None:
        """Bits of span's kernel's Seen for these flag ids: the first bit, or None (no kernel, or full)."""
        key = self._kernel_of(span)
        if key is None or len(self._seen_ids[key]) + len(ids) > SEEN_BITS:
            return None
        first = len(self._seen_ids[key])
        self._seen_ids[key] += ids
        return first

    def _give_back_bits(self, span: Span, n: int) -> None:
        key = self._kernel_of(span)
        del self._seen_ids[key][len(self._seen_ids[key]) - n:]

    def defines(self) -> list[str]:
        """What the runtime must be built with, known once the program is planned."""
        out = [define(Macro.CLTC_COV_FLAGS, max(1, self.table.flags)),
               define(Macro.CLTC_COV_BARRIERS, len(self.table.barriers)),
               define(Macro.CLTC_COV_COUNTS, self.count_executions)]
        return out + ([define(Macro.CLTC_COV_UNITS, True)] if self.unit_mode else [])

    # -- the planner -----------------------------------------------------------
    def __call__(self, prog: Program, plan: EditPlan) -> None:
        unit = prog.unit
        if unit.language == "host":   # no kernels there, and no room for the device runtime
            for call in prog.api_calls:
                if call.name == "cudaDeviceReset":
                    self.skipped.append(f"{call.span.where()}: cudaDeviceReset in a host-only source: coverage "
                                        "of the launches before it is lost (call it from a .cu source to keep it)")
            return
        reach = prog.device_reachable()
        const_fns = {n for n, f in prog.functions.items() if f.is_constexpr}
        live = reach - const_fns
        plan.add_prelude(unit.main, '#include "cltc/coverage.h"')
        # code no reading of the unit saw (instrument/frontend/device_view.py)
        self.skipped += device_view.unseen(prog, live, "items written only there are not counted")

        self._nested = list(prog.nested_bodies)
        for name in sorted(live, key=lambda n: (prog.functions[n].span.file, prog.functions[n].span.start)):
            f = prog.functions[name]
            if not self._once(f.body):
                continue
            flag = self._alloc(1)
            asm = any(what == "inline assembly" and sp.file == f.body.file and f.body.start <= sp.start < f.body.end
                      for what, sp in prog.special)   # (an `exit` in it would skip the Seen's destructor)
            if f.kind == "global" and not self.count_executions and not asm and \
                    (plan.unit is None or plan.unit.macro_at(f.body) is None):
                # the entry is bit 0 of the kernel's Seen, declared once its bits are known (below)
                self._seen_ids[(f.body.file, f.body.start)] = [flag]
                self._kernel_bodies.append(f.body)
                self.table.functions.append(FunctionSite(name, f.kind, f.span.file, f.span.line, flag))
            elif plan.insert(f.body, f.body.start + 1, f" ::cltc::cov::hit({flag}u);", f"cltc entry of {name}"):
                self.table.functions.append(FunctionSite(name, f.kind, f.span.file, f.span.line, flag))
            else:
                self._release(flag, 1)

        logic = [b for b in prog.branches if b.kind in ("&&", "||")]
        logic_spans = {(b.span.file, b.span.start, b.span.end) for b in logic}
        for b in prog.branches:
            if b.function not in live:
                continue
            if b.kind in ("if", "conditional"):
                self._two_way(prog, plan, b)
            elif b.kind == "switch":
                self._switch(prog, plan, b)
            elif b.kind in ("&&", "||"):
                for arm in b.arms:
                    if arm is not None and self._leaf(prog, arm, logic_spans):
                        self._condition(prog, plan, b, arm)

        for lp in prog.loops:
            if lp.function in live:
                self._loop(prog, plan, lp)

        barrier_fns: set[str] = set()
        variant_fns: set[str] = set()
        for b in prog.barriers:
            if b.function not in live or b.scope != "block" or not self._once(b.span):
                continue
            idx = len(self.table.barriers)
            bit = self._take_bits(b.span, [SEEN_BARRIER_FLAG | 2 * idx, SEEN_BARRIER_FLAG | 2 * idx + 1]) \
                if b.name == "__syncthreads" else None
            if bit is not None:
                ok = plan.wrap(b.span, f"CLTC_COV_SYNC_IN(cltc_seen_, {idx}u, {bit}u, ", ")",
                               f"cltc arrival at {b.name}")
                if not ok:
                    self._give_back_bits(b.span, 2)
            elif b.name == "__syncthreads":
                ok = plan.wrap(b.span, f"CLTC_COV_SYNC({idx}u, ", ")", f"cltc arrival at {b.name}")
            else:
                ok = plan.wrap(b.span, f"(::cltc::cov::arrive({idx}u), ", ")", f"cltc arrival at {b.name}")
                if ok:
                    variant_fns.add(b.function)
            if ok:
                self.table.barriers.append(BarrierSite(idx, b.name, b.span.file, b.span.line, b.span.col,
                                                       b.function))
                barrier_fns.add(b.function)
        for k in prog.kernels:
            if k.name in live and self._reaches(prog, k.name, barrier_fns):
                variants = "true" if self._reaches(prog, k.name, variant_fns) else "false"
                plan.insert(k.body, k.body.start + 1, f" ::cltc::cov::BlockScope<{variants}> cltc_block_scope_;",
                            f"cltc block scope of {k.name}")
        for body in self._kernel_bodies:
            ids = self._seen_ids[(body.file, body.start)]
            args = ", ".join(f"{i}u" for i in ids)
            if not plan.insert(body, body.start + 1, f" ::cltc::cov::Seen<{args}> cltc_seen_; cltc_seen_.note(0u);",
                               "cltc register flags of a kernel"):   # (checked above: outside macros)
                raise RewriteConflict(f"{body.where()}: cltc could not declare the kernel's coverage bits here",
                                      "report this as a cltc bug, with the kernel's source")

        for ls in prog.launches:
            s = unit.source(ls.span.file)
            cfg = [s.text(x.start, x.end) for x in ls.config_args]
            plan.wrap(ls.span, f"(::cltc::cov::host::before_launch(dim3({cfg[0]}), dim3({cfg[1]})), ", ")",
                      f"cltc launch of {ls.kernel}")
        for la in api_launches(prog):   # (cudaLaunchKernel, cudaLaunchCooperativeKernel: launches too)
            plan.wrap(la.call.span, f"(::cltc::cov::host::before_launch(dim3({la.grid}), dim3({la.block})), ", ")",
                      f"cltc launch of {la.kernel} through {la.call.name}", allow_macro=la.call.span.in_macro_arg)
        for call in prog.api_calls:
            if call.name == "cudaDeviceReset":
                plan.wrap(call.span, "(::cltc::cov::host::before_reset(), ", ")", "cltc collection before reset")
        if self.unit_mode:
            self._register_unit(prog, plan)

    def _register_unit(self, prog: Program, plan: EditPlan) -> None:
        """unit_mode: the unit's item table (JSON, as sites.py reads it) and its registration, at the end
        of its main file; the launcher shows the unit's warnings (what is not measured) as the build runs."""
        plan.warnings.extend(self.skipped)
        table = json.dumps(self.table.to_json(), separators=(",", ":"))
        register_at_end(prog, plan, f"cltc_unit_first_ = ::cltc::cov::register_this_unit({c_strings(table)}, "
                        f"{self.table.flags}u, {len(self.table.barriers)}u)", "cltc item table of the unit")

    @staticmethod
    def _reaches(prog: Program, fn: str, targets: set[str]) -> bool:
        seen, todo = {fn}, [fn]
        while todo:
            cur = todo.pop()
            if cur in targets:
                return True
            for c in prog.calls.get(cur, ()):
                if c in prog.functions and c not in seen:
                    seen.add(c)
                    todo.append(c)
        return False

    def _leaf(self, prog: Program, arm: Span, logic_spans: set) -> bool:
        """True unless the operand is itself an && / || (possibly in parentheses)."""
        text = self._text(prog, arm)
        start, end = arm.start, arm.end
        while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
            lead = len(text) - len(text[1:].lstrip())
            trail = len(text) - len(text[:-1].rstrip())
            start, end = start + lead, end - trail
            text = text[1:-1].strip()
            if (arm.file, start, end) in logic_spans:
                return False
        return (arm.file, arm.start, arm.end) not in logic_spans

    def _two_way(self, prog: Program, plan: EditPlan, b: Branch) -> None:
        if b.cond is None or not b.plain_cond:
            self.skipped.append(f"{b.span.where()}: {b.kind} with a declaration or constant condition "
                                "is not measured")
            return
        if not self._once(b.cond):
            return
        t = self._alloc(2)
        if not self._wrap_br(plan, b.cond, t, f"cltc {b.kind} at {b.span.where()}"):
            self._release(t, 2)
            return
        if b.kind == "if":
            then, els = b.arms
            arms = [Arm("then", t, then.line if then else b.span.line, self._code_lines(prog, then)),
                    Arm("else" if els is not None else "else (absent)", t + 1, els.line if els else b.span.line,
                        self._code_lines(prog, els))]
        else:
            arms = [Arm("true", t, b.arms[0].line if b.arms[0] else b.span.line),
                    Arm("false", t + 1, b.arms[1].line if b.arms[1] else b.span.line)]
        self.table.branches.append(BranchSite(b.kind, b.span.file, b.span.line, b.span.col, b.function,
                                              _short(self._text(prog, b.cond)), arms))

    def _wrap_br(self, plan: EditPlan, cond: Span, t: int, origin: str) -> bool:
        """Wrap a condition to note flags t (true) and t + 1 (false)."""
        bit = self._take_bits(cond, [t, t + 1])
        if bit is None:
            return plan.wrap(cond, "::cltc::cov::br(!!(", f"), {t}u, {t + 1}u)", origin)
        if plan.wrap(cond, "::cltc::cov::br_in(cltc_seen_, !!(", f"), {bit}u, {bit + 1}u)", origin):
            return True
        self._give_back_bits(cond, 2)
        return False

    def _condition(self, prog: Program, plan: EditPlan, op: Branch, arm: Span) -> None:
        if not self._once(arm):
            return
        t = self._alloc(2)
        if not self._wrap_br(plan, arm, t, f"cltc operand of {op.kind}"):
            self._release(t, 2)
            return
        self.table.branches.append(BranchSite("condition", arm.file, arm.line, arm.col, op.function,
                                              _short(self._text(prog, arm)),
                                              [Arm("true", t, arm.line), Arm("false", t + 1, arm.line)]))

    def _switch(self, prog: Program, plan: EditPlan, sw: Branch) -> None:
        if sw.cond is None or not sw.plain_cond:
            self.skipped.append(f"{sw.span.where()}: switch with an init statement or a declaration "
                                "is not measured")
            return
        cases = [c for c in prog.branches if c.kind in ("case", "default") and _innermost_switch(prog, c) is sw]
        labels = []
        for c in cases:
            if c.kind == "default":
                continue
            if c.cond is None:
                return
            value = self._text(prog, c.cond)
            if "..." in value or prog.unit.macro_at(c.cond) is not None and not value:
                self.skipped.append(f"{sw.span.where()}: switch with a case range is not measured")
                return
            labels.append((c, value))
        default = next((c for c in cases if c.kind == "default"), None)
        if not self._once(sw.cond):
            return
        n = len(labels) + 1
        base = self._alloc(n)
        var = f"cltc_sw{base}_"
        bit = self._take_bits(sw.cond, list(range(base, base + n)))
        first, call = (base, "::cltc::cov::sw(") if bit is None else (bit, "::cltc::cov::sw_in(cltc_seen_, ")
        chain = "".join(f"{var} == ({v}) ? {first + i}u : " for i, (_, v) in enumerate(labels)) + f"{first + n - 1}u"
        if not plan.wrap(sw.cond, f"auto {var} = (", f"); {call}{chain}, {var})",
                         f"cltc switch at {sw.span.where()}"):
            if bit is not None:
                self._give_back_bits(sw.cond, n)
            self._release(base, n)
            return
        arms = [Arm(f"case {_short(v, 30)}", base + i, c.span.line) for i, (c, v) in enumerate(labels)]
        arms.append(Arm("default", base + n - 1, default.span.line) if default is not None
                    else Arm("no case matched", base + n - 1, sw.span.line))
        self.table.branches.append(BranchSite("switch", sw.span.file, sw.span.line, sw.span.col, sw.function,
                                              _short(self._text(prog, sw.cond)), arms))

    def _loop(self, prog: Program, plan: EditPlan, lp: Loop) -> None:
        if not self._once(lp.span):
            return
        cond_text = self._text(prog, lp.cond).strip() if lp.cond is not None else ""
        endless = lp.kind != "range-for" and (lp.cond is None or cond_text in _CONSTANT_TRUE)
        boundary = lp.cond is not None and lp.plain_cond and not endless
        # a do loop, or one with no condition, always runs its body; only a
        # condition can end a loop at its boundary
        cases = [c for c in LOOP_CASES
                 if not (c == "zero" and (lp.kind == "do" or endless)) and not (c == "boundary" and not boundary)]
        base = self._alloc(len(LOOP_CASES))
        var = loop_var(base)
        outer = self._semi_after(prog, lp.span) if (lp.kind == "do" or not lp.body_compound) else lp.span
        body = lp.body if lp.body_compound else self._semi_after(prog, lp.body)
        where = lp.span.where()
        src = prog.unit.source(lp.span.file)
        pragma_at = _pragma_line_start(src.data, lp.span.start)
        bit = self._take_bits(lp.span, list(range(base, base + len(LOOP_CASES))))
        opener = f"{{ ::cltc::cov::Loop {var}({base}u);" if bit is None else \
            f"{{ ::cltc::cov::LoopIn<decltype(cltc_seen_)> {var}(cltc_seen_, {bit}u);"
        if pragma_at is not None:   # `#pragma unroll` must stay right before its loop
            ok = plan.insert(lp.span, pragma_at, opener + "\n", f"cltc loop at {where}")
            ok = ok and plan.insert(lp.span, outer.end, " }", f"cltc loop end at {where}", order=(0, 1 << 30))
        else:
            ok = plan.wrap(outer, opener + " ", " }", f"cltc loop at {where}")
        if not ok:
            if bit is not None:
                self._give_back_bits(lp.span, len(LOOP_CASES))
            self._release(base, len(LOOP_CASES))
            return
        plan.wrap(body, f"{{ {var}.iter(); ", " }", f"cltc loop body at {where}", allow_macro=True)
        if boundary:
            plan.wrap(lp.cond, f"{var}.test(!!(", "))", f"cltc loop condition at {where}", allow_macro=True)
        self.table.loops.append(LoopSite(lp.kind, lp.span.file, lp.span.line, lp.span.col, lp.function,
                                         _short(src.text(lp.span.start, lp.body.start).strip()), base, cases))


def loop_var(base: int) -> str:
    """The name of a loop's coverage record (`Loop`, `LoopIn`: its `n`, the iterations of the entry so
    far), declared around the loop: the distance planner's loop helpers read it in the condition."""
    return f"cltc_loop{base}_"


def _innermost_switch(prog: Program, case: Branch) -> Branch | None:
    best = None
    for b in prog.branches:
        if b.kind == "switch" and b.span.file == case.span.file and b.span.start < case.span.start \
                and case.span.end <= b.span.end:
            if best is None or b.span.start > best.span.start:
                best = b
    return best


def _pragma_line_start(data: bytes, offset: int) -> int | None:
    """Start of the `#pragma ...` line directly before the line holding offset."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    if data[line_start:offset].strip():
        return None
    prev_end = line_start - 1
    if prev_end < 0:
        return None
    prev_start = data.rfind(b"\n", 0, prev_end) + 1
    if re.match(rb"\s*#\s*pragma\b", data[prev_start:prev_end]):
        return prev_start
    return None


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def _short(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 3] + "..."
