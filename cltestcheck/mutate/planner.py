"""Plan the mutant schemata of one translation unit: every mutant compiled in, one chosen at run time.

A mutation site s (an operator, a barrier, an index...) owns mutant ids
base..base+k-1; the edit routes the site through a helper of
runtime/include/cltc/mutate.h that does the original or the active mutant:
`a + b` -> `::cltc::mut::bin_m<0, 1, 2, 3, 4>(a , b, s, base)`. Operands stay where they are
(never copied), so they are evaluated exactly as often as in the original.
Order matters for edits of the same span: the edit that replaces an operator
token inside the span must be the innermost, so operators are planned last.

In `unit_mode` (one unit built by itself, through the compiler launcher cltc-cc in mutate mode:
cltestcheck/cc.py) the unit's sites and mutants are numbered from 0 and 1, and its mutant table
(JSON: cltestcheck/mutate/units.py reads it) and each mutant's stable id (`selector`) go into its own
text: a call at the end of its main file registers them when the program starts, and the runtime
gives the unit its first site among the program's (runtime/include/cltc/mutate.h,
`register_this_unit`). $CLTC_MUTANT then names a mutant by its stable id.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

from instrument.frontend.api_launches import api_launches
from instrument.frontend.parse import Span
from instrument.frontend.query import ATOMIC_OPS, Operator, Program
from instrument.protocol import Macro, define
from instrument.frontend.rewrite import EditPlan

from ..unit_tables import c_strings, register_at_end
from .code_keys import CodeKeys
from .operators import ARITH, ARITH_ASSIGN, BITS, BITS_ASSIGN, CODE, REL

_NUM = ("int", "float")


@dataclass
class Mutant:
    id: int
    site: int
    operator: str
    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    function: str
    original: str
    replacement: str
    description: str
    start: int = 0        # byte offsets of the mutated text in file
    end: int = 0
    key: str = ""         # identity across edits elsewhere (code_keys.py): '' never reused


def selector(m: Mutant, root: str | None = None) -> str:
    """A mutant's stable id in a program built by cltc-cc, what $CLTC_MUTANT names it by:
    FILE:LINE:COLUMN:OPERATOR:REPLACEMENT (the replacement's white space as single spaces). With
    `root`, a file under it is named relative to it (the runtime takes a tail of the path too)."""
    file = os.path.normpath(m.file)
    if root is not None and not os.path.relpath(file, root).startswith(".."):
        file = os.path.relpath(file, root)
    return f"{file}:{m.line}:{m.col}:{m.operator}:{' '.join(m.replacement.split())}"


class MutationPlanner:
    tool = "mutate"       # what a kernel library built with it has compiled in

    def __init__(self, operators: list[str], exclude_lines: set[tuple[str, int]] = frozenset(),
                 unit_mode: bool = False, dropped: list[Mutant] = ()):
        self.operators = set(operators)
        self.exclude = set(exclude_lines)
        self.unit_mode = unit_mode   # one unit built by cltc-cc: its table in its own text (above)
        self.dropped = list(dropped)   # (unit_mode) mutants dropped because their lines did not parse
        self.mutants: list[Mutant] = []
        self.sites = 0
        self._seen: set[tuple] = set()
        self.keys = CodeKeys()

    # -- bookkeeping ------------------------------------------------------------
    def _new_site(self, span: Span, key: str) -> bool:
        k = (span.file, span.start, span.end, key)
        if k in self._seen or (span.file, span.line) in self.exclude:
            return False
        self._seen.add(k)
        return True

    def _commit(self, prog: Program, ok: bool, site: int, span: Span, operator: str, fn: str,
                alternatives: list[tuple[str, str]]) -> None:
        """Record the site's mutants (original text, replacement text, description) once planned."""
        if not ok:
            return
        src = prog.unit.source(span.file)
        end_line, end_col = src.line_col(span.end)
        original = src.text(span.start, span.end)
        place = self.keys.place(prog, span, fn)
        for repl, desc in alternatives:
            key = self.keys.mutant(place, operator, repl)
            self.mutants.append(Mutant(len(self.mutants) + 1, site, operator, span.file, span.line, span.col,
                                       end_line, end_col, fn, original, repl, desc, span.start, span.end, key))
        self.sites += 1

    def _ids(self) -> tuple[int, int]:
        """(site index, first mutant id) for the next site."""
        return self.sites, len(self.mutants) + 1

    def defines(self) -> list[str]:
        """What the runtime must be built with, known once the program is planned."""
        return [define(Macro.CLTC_MUT_SITES, max(1, self.sites))] + \
            ([define(Macro.CLTC_MUT_UNITS, True)] if self.unit_mode else [])

    # -- the planner -------------------------------------------------------------
    def __call__(self, prog: Program, plan: EditPlan) -> None:
        unit = prog.unit
        live = prog.device_reachable() - {n for n, f in prog.functions.items() if f.is_constexpr}
        self.keys.add_host(prog)
        if unit.language == "host":   # no kernels there, and no room for the device runtime
            return
        plan.add_prelude(unit.main, '#include "cltc/mutate.h"')
        ops = self.operators
        if "loop" in ops:
            for lp in prog.loops:
                if lp.function in live:
                    self._loop(prog, plan, lp)
        if "shared-index" in ops:
            for sub in prog.subscripts:
                if sub.function in live and sub.space == "shared" and self._new_site(sub.index, "shidx"):
                    s, b = self._ids()
                    ok = plan.wrap(sub.index, "::cltc::mut::shidx_m(", f", {s}u, {b}u)", "cltc mutant shared index")
                    txt = unit.source(sub.index.file).text(sub.index.start, sub.index.end)
                    self._commit(prog, ok, s, sub.index, "shared-index", sub.function,
                                 [(f"({txt}) + 1", "shared-memory index + 1"),
                                  (f"({txt}) - 1", "shared-memory index - 1")])
        if "thread-index" in ops:
            for r in prog.index_refs:
                if r.function not in live or not self._new_site(r.span, "idx"):
                    continue
                s, b = self._ids()
                other = "blockIdx" if r.name == "threadIdx" else "threadIdx"
                k = 3 if r.name == "threadIdx" else 1
                ok = plan.wrap(r.span, "::cltc::mut::idx_m(", f", {other}.{r.component}, {s}u, {b}u, {k}u)",
                               "cltc mutant thread index")
                me = f"{r.name}.{r.component}"
                alts = [(f"({me} + 1)", f"{me} + 1"), (f"({me} - 1)", f"{me} - 1")] if k == 3 else []
                alts.append((f"{other}.{r.component}", f"{me} replaced by {other}.{r.component}"))
                self._commit(prog, ok, s, r.span, "thread-index", r.function, alts)
        if "atomic" in ops:
            for at in prog.atomics:
                if at.function not in live or at.scope != "device" or at.op not in ATOMIC_OPS:
                    continue
                self._atomic(prog, plan, at)
        if "barrier" in ops:
            for bar in prog.barriers:
                if bar.function not in live or bar.name not in ("__syncthreads", "__syncwarp"):
                    continue
                if not self._new_site(bar.span, "bar"):
                    continue
                s, b = self._ids()
                ok = plan.wrap(bar.span, f"(::cltc::mut::on({s}u, {b}u) ? (void)0 : (void)", ")",
                               "cltc mutant barrier deletion")
                self._commit(prog, ok, s, bar.span, "barrier", bar.function, [("", f"{bar.name}() deleted")])
        for op in prog.operators:
            if op.function in live:
                self._operator(prog, plan, op)
        for ls in prog.launches:
            plan.wrap(ls.span, "(::cltc::mut::host::before_launch(), ", ")", f"cltc mutant choice before {ls.kernel}")
        for la in api_launches(prog):
            plan.wrap(la.call.span, "(::cltc::mut::host::before_launch(), ", ")",
                      f"cltc mutant choice before {la.kernel}", allow_macro=la.call.span.in_macro_arg)
        for call in prog.api_calls:
            if call.name == "cudaDeviceReset":
                plan.wrap(call.span, "(::cltc::mut::host::before_reset(), ", ")", "cltc reach flags before reset")
        if self.unit_mode:
            self._register_unit(prog, plan)

    def _register_unit(self, prog: Program, plan: EditPlan) -> None:
        """unit_mode: the unit's mutant table (JSON, as units.py reads it) and its mutants' stable ids
        (one a line, in the order of their ids), registered at the end of its main file."""
        table = json.dumps({"sites": self.sites, "mutants": [asdict(m) for m in self.mutants],
                            "dropped": [asdict(m) for m in self.dropped], "host": self.keys.host},
                           separators=(",", ":"))
        selectors = "\n".join(selector(m) for m in self.mutants)
        register_at_end(prog, plan, f"cltc_mut_first_site_ = ::cltc::mut::register_this_unit({c_strings(table)}, "
                        f"{c_strings(selectors)}, {len(self.mutants)}u)", "cltc mutant table of the unit")

    # -- sites ---------------------------------------------------------------------
    def _loop(self, prog: Program, plan: EditPlan, lp) -> None:
        if lp.cond is None or not lp.plain_cond or lp.kind not in ("for", "while"):
            return
        if not self._new_site(lp.cond, "loop"):
            return
        s, b = self._ids()
        ok = plan.wrap(lp.cond, f"(!::cltc::mut::on({s}u, {b}u) && (", "))", "cltc mutant loop skip")
        self._commit(prog, ok, s, lp.cond, "loop", lp.function, [("false", "loop skipped (body never runs)")])
        # a counted loop: `i < n` -> bound n - 1 / n + 1
        cmp = next((o for o in prog.operators if o.span == lp.cond and o.op in ("<", "<=", ">", ">=")), None)
        if cmp is None or cmp.types[1] != "int" or not self._new_site(cmp.operands[1], "bound"):
            return
        s, b = self._ids()
        rhs = cmp.operands[1]
        txt = prog.unit.source(rhs.file).text(rhs.start, rhs.end)
        ok = plan.wrap(rhs, "::cltc::mut::bound_m(", f", {s}u, {b}u)", "cltc mutant loop bound")
        up = cmp.op in ("<", "<=")
        self._commit(prog, ok, s, rhs, "loop", lp.function,
                     [(f"({txt}) - 1", f"loop bound - 1 ({'n-1' if up else 'n+1'} iterations)"),
                      (f"({txt}) + 1", f"loop bound + 1 ({'n+1' if up else 'n-1'} iterations)")])

    def _atomic(self, prog: Program, plan: EditPlan, at) -> None:
        src = prog.unit.source(at.span.file)
        tok = src.token_at_or_after(at.span.start)
        if tok is None or tok.spelling != at.name or not self._new_site(at.span, "atomic"):
            return
        paren = src.token_at_or_after(tok.offset + len(tok.spelling))
        if paren is None or paren.spelling != "(":
            return
        s, b = self._ids()
        name_span = Span(at.span.file, tok.offset, tok.offset + len(tok.spelling), at.span.line, at.span.col)
        after_paren = Span(at.span.file, paren.offset + 1, paren.offset + 1, at.span.line, at.span.col)
        ok = plan.wrap_replace(at.span, "", "", [(name_span, f"::cltc::mut::{at.op}_m"),
                                                 (after_paren, f"{s}u, {b}u, ")], "cltc mutant atomic")
        self._commit(prog, ok, s, name_span, "atomic", at.function,
                     [(f"plain_{at.op}", f"{at.name} as a plain read-modify-write")])

    def _operator(self, prog: Program, plan: EditPlan, o: Operator) -> None:
        op = o.op
        if o.arity == 1:
            t = o.types[0]
            if op in ("++", "--") and "unary" in self.operators and t in ("int", "float", "pointer"):
                other = "--" if op == "++" else "++"
                if not self._new_site(o.span, "unary"):
                    return
                s, b = self._ids()
                if o.prefix:
                    ok = plan.wrap_replace(o.span, "", f", {s}u, {b}u)",
                                           [(o.op_span, f"::cltc::mut::pre_m<{CODE[op]}>(")], "cltc mutant ++/--")
                else:
                    ok = plan.wrap_replace(o.span, f"::cltc::mut::post_m<{CODE[op]}>(", "",
                                           [(o.op_span, f", {s}u, {b}u)")], "cltc mutant ++/--")
                self._commit(prog, ok, s, o.op_span, "unary", o.function, [(other, f"{op} replaced by {other}")])
            elif op == "-" and "unary" in self.operators and t in _NUM and o.prefix:
                self._unary_drop(prog, plan, o, "neg_m", "unary", "negation dropped")
            elif op == "!" and "logical" in self.operators and o.prefix:
                self._unary_drop(prog, plan, o, "not_m", "logical", "`!` dropped")
            return
        ta, tb = o.types
        if op in ARITH and "arithmetic" in self.operators and ta in _NUM and tb in _NUM:
            ints = ta == "int" and tb == "int"
            alts = [x for x in ARITH if x != op and (ints or x != "%")]
            self._binary(prog, plan, o, "arithmetic", alts)
        elif op in REL and "relational" in self.operators and ta in _NUM + ("pointer", "bool") \
                and tb in _NUM + ("pointer", "bool"):
            self._binary(prog, plan, o, "relational", [x for x in REL if x != op])
        elif op in BITS and "bitwise" in self.operators and ta in ("int", "bool") and tb in ("int", "bool"):
            self._binary(prog, plan, o, "bitwise", [x for x in BITS if x != op])
        elif op in ("&&", "||") and "logical" in self.operators:
            if not self._new_site(o.span, "logic"):
                return
            s, b = self._ids()
            flag = f"::cltc::mut::is_or({1 if op == '||' else 0}, {s}u, {b}u)"
            ok = plan.wrap_replace(o.span, f"({flag} != !!(", f") : {flag})", [(o.op_span, ") ? !!(")],
                                   f"cltc mutant {op}")
            other = "||" if op == "&&" else "&&"
            self._commit(prog, ok, s, o.op_span, "logical", o.function, [(other, f"{op} replaced by {other}")])
        elif "assignment" in self.operators and ta in _NUM and tb in _NUM + ("bool",):
            if op in ARITH_ASSIGN:
                ints = ta == "int" and tb == "int"
                fam = [x for x in ARITH_ASSIGN if x != op and (ints or x != "%=")] + ["="]
            elif op in BITS_ASSIGN and ta == "int":
                fam = [x for x in BITS_ASSIGN if x != op] + ["="]
            elif op == "=":
                fam = ["+="]
            else:
                return
            if not self._new_site(o.span, "assign"):
                return
            s, b = self._ids()
            codes = ", ".join(str(CODE[x.rstrip("=") or "="]) for x in [op] + fam)
            ok = plan.wrap_replace(o.span, f"::cltc::mut::assign_m<{codes}>(", f", {s}u, {b}u)",
                                   [(o.op_span, ",")], f"cltc mutant {op}")
            self._commit(prog, ok, s, o.op_span, "assignment", o.function,
                         [(x, f"{op} replaced by {x}") for x in fam])

    def _binary(self, prog: Program, plan: EditPlan, o: Operator, family: str, alts: list[str]) -> None:
        if not self._new_site(o.span, family):
            return
        s, b = self._ids()
        codes = ", ".join(str(CODE[x]) for x in [o.op] + alts)
        ok = plan.wrap_replace(o.span, f"::cltc::mut::bin_m<{codes}>(", f", {s}u, {b}u)", [(o.op_span, ",")],
                               f"cltc mutant {o.op}")
        self._commit(prog, ok, s, o.op_span, family, o.function, [(x, f"{o.op} replaced by {x}") for x in alts])

    def _unary_drop(self, prog, plan, o: Operator, helper: str, family: str, desc: str) -> None:
        if not self._new_site(o.span, family + helper):
            return
        s, b = self._ids()
        ok = plan.wrap_replace(o.span, "", f", {s}u, {b}u)", [(o.op_span, f"::cltc::mut::{helper}(")],
                               f"cltc mutant {o.op}")
        self._commit(prog, ok, s, o.op_span, family, o.function, [("", desc)])
