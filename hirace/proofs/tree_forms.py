"""Which word of a one-dimensional `__shared__` array an access names, relative to its thread, in
the tree reductions of shared memory:

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) sdata[tid] += sdata[tid + s];
      __syncthreads();
    }

In one pass of such a loop every thread below `s` writes its own word, below `s`, and reads its own
word and the word `s` above it, which no thread writes in that pass; a thread reads a word of its
own elsewhere (`if (tid == 0) out = sdata[0]`). `tree_vars` finds the loop variables that every
thread holds alike in a pass (`s`), `tree_form` the word an access names:

- `own`: the thread's own word: `A[tid]`, or `A[c]` under `if (tid == c)`;
- `offset`: `A[tid + s]`, a word at or above `s` (tid is never negative);
- `guarded`: a write or read-modify-write of the own word under `if (tid < s)`, a word below `s`.

And the loads of a tile with its halo, `s[l] = ...; if (threadIdx.x < R) { s[l - R] = ...; s[l + 256] =
...; }` with `l = threadIdx.x + R`: `offset_form` writes each as lane + offset for the threads whose
lane is below a cap (the guard's bound, else the block's extent); the words of two such writes never
meet where their ranges [offset, offset + min(cap, extent)) are apart, which the kernel tests at the
launch (hirace/quiet.h `lanes_apart`).

hirace/proofs/intervals.py decides from these which accesses share their interval with no conflicting
one. A lane (`tid`) is `threadIdx.x`, `.y` or `.z` or an unchanged local copy; its words are each
thread's own only where the other two block extents are 1 (conditions.OwnWord).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from clang import cindex

from .own_index import COORDS, _NotLinear, address_taken, linear_form
from instrument.frontend.parse import Span

CK = cindex.CursorKind
TK = cindex.TypeKind

_INTS = (TK.INT, TK.UINT, TK.LONG, TK.ULONG, TK.LONGLONG, TK.ULONGLONG, TK.SHORT, TK.USHORT)
_ONE = re.compile(r"\s*(\w+)\s*\[(.*)\]\s*", re.S)
_STEP = re.compile(r"\s*(\w+)\s*(>>=|<<=|/=|\*=|\+=|-=)(.*)", re.S)
_JUMPS = (CK.BREAK_STMT, CK.CONTINUE_STMT, CK.RETURN_STMT, CK.GOTO_STMT, CK.INDIRECT_GOTO_STMT, CK.LABEL_STMT)
_HOLDERS = (CK.IF_STMT, CK.SWITCH_STMT, CK.FOR_STMT, CK.WHILE_STMT, CK.DO_STMT, CK.CXX_FOR_RANGE_STMT,
            CK.COMPOUND_STMT, CK.UNEXPOSED_STMT)   # statements a barrier in them may be skipped in


@dataclass(frozen=True)
class TreeForm:
    kind: str        # 'own' | 'offset' | 'guarded'
    lane: str        # 'x' | 'y' | 'z'
    var: str = ""    # the loop variable of 'offset' and 'guarded'


def _norm(text: str) -> str:
    text = re.sub(r"\s+", "", text)
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def tree_vars(cur: cindex.Cursor, prog, scope, kernel_body: Span, cut_spans: list[Span]) -> dict[str, Span]:
    """The kernel's tree loop variables, each with its loop's body: `for (int s = E0; C; s op= E1)`
    where E0, C and E1 name only s, literals, unchanged integer parameters, macros, `blockDim` and
    `gridDim`; s is declared once, never changed but by the step nor addressed; the body's only
    block barrier is its last statement, and nothing leaves the body early (break, continue,
    return, goto). Every thread then holds the same s between two passes' barriers."""
    found: dict[str, Span] = {}
    for c in cur.walk_preorder():
        if c.kind != CK.FOR_STMT:
            continue
        kids = list(c.get_children())
        if len(kids) != 4 or kids[0].kind != CK.DECL_STMT or kids[3].kind != CK.COMPOUND_STMT:
            continue
        decls = list(kids[0].get_children())
        if len(decls) != 1 or decls[0].kind != CK.VAR_DECL or decls[0].type.get_canonical().kind not in _INTS:
            continue
        var = decls[0]
        name = var.spelling
        init = [k for k in var.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF)]
        body, step = prog.unit.span_of(kids[3]), prog.unit.span_of(kids[2])
        if body is None or step is None or scope.decls.get(name) != 1 or len(init) != 1:
            continue
        try:
            if not (_uniform(init[0], scope, var) and _uniform(kids[1], scope, var) and
                    _step_ok(kids[2], scope, var, name)):
                continue
        except (_NotLinear, ValueError, AttributeError, KeyError, IndexError, TypeError):
            continue   # (a span libclang does not give: not a tree loop)
        # changed only by the step, and never addressed
        sets = [o for o in prog.operators if o.operands and _within(o.span, kernel_body) and
                src_text(prog, o.operands[0]) == name and o.assigns()]
        if len(sets) != 1 or not _within(sets[0].span, step) or \
                any(n == name and _within(sp, kernel_body) for sp, n in prog.aliased):
            continue
        if address_taken(name, scope.body_text):
            continue
        stmts = list(kids[3].get_children())
        inside = [b for b in cut_spans if _within(b, body)]
        last = prog.unit.span_of(stmts[-1]) if stmts else None
        if len(inside) != 1 or last is None or not _within(inside[0], last):
            continue
        # (the body's last statement is the barrier's own, not a branch or loop around it: every round ends at it)
        if stmts[-1].kind in _HOLDERS or any(_within(inside[0], br.span) and _within(br.span, last)
                                             for br in prog.branches):
            continue
        if any(k.kind in _JUMPS for k in kids[3].walk_preorder()):
            continue
        found[name] = body
    return found


def src_text(prog, span: Span) -> str:
    return prog.unit.source(span.file).text(span.start, span.end).strip()


def _uniform(c: cindex.Cursor, scope, var: cindex.Cursor) -> bool:
    """c names only `var`, literals, unchanged integer parameters, macros, blockDim and gridDim."""
    try:
        scope.uniform(c, var)
        return True
    except _NotLinear:
        return False


def _step_ok(c: cindex.Cursor, scope, var: cindex.Cursor, name: str) -> bool:
    """`s >>= E` (or <<=, /=, *=, +=, -=) with E uniform, or `s++`, `--s` ..."""
    text = scope.text(c).strip()
    if re.fullmatch(r"(\+\+|--)\s*" + re.escape(name) + r"|" + re.escape(name) + r"\s*(\+\+|--)", text):
        return True
    m = _STEP.fullmatch(text)
    if not m or m.group(1) != name or c.kind != CK.COMPOUND_ASSIGNMENT_OPERATOR:
        return False
    kids = list(c.get_children())
    return len(kids) == 2 and _uniform(kids[1], scope, var) and name not in re.findall(r"\w+", m.group(3))


def tree_form(a, lanes: dict[str, str], trees: dict[str, Span], guards: list[tuple[str, Span]]) -> TreeForm | None:
    """The word a single-subscript access of a declared array names (see the module's docstring),
    or None. `guards`: the normalised conditions of the `if`s whose then-branch holds the access,
    with each `if`'s span."""
    if a.bound != "array":
        return None
    m = _ONE.fullmatch(a.text)
    if not m or m.group(1) != a.base or "[" in m.group(2):
        return None
    index = _norm(m.group(2))
    conds = [c for c, _ in guards]
    if index in lanes:
        lane = lanes[index]
        for cond, span in guards:
            g = re.fullmatch(r"(\w+(?:\.\w)?)<(\w+)|(\w+)>(\w+(?:\.\w)?)", cond)
            if not g:
                continue
            lo, var = (g.group(1), g.group(2)) if g.group(1) else (g.group(4), g.group(3))
            if lanes.get(lo) == lane and var in trees and _within(span, trees[var]):
                if a.kind in ("write", "rmw"):
                    return TreeForm("guarded", lane, var)
        return TreeForm("own", lane)
    parts = index.split("+")
    if len(parts) == 2:
        for lo, var in (parts, parts[::-1]):
            if lo in lanes and var in trees and _within(a.span, trees[var]):
                return TreeForm("offset", lanes[lo], var) if a.kind == "read" else None
        return None
    if re.fullmatch(r"\d+[uU]?", index):
        for cond in conds:
            g = re.fullmatch(r"(\w+(?:\.\w)?)==(\d+)[uU]?|(\d+)[uU]?==(\w+(?:\.\w)?)", cond)
            if g:
                lo, n = (g.group(1), g.group(2)) if g.group(1) else (g.group(4), g.group(3))
                if lo in lanes and int(n) == int(index.rstrip("uU")):
                    return TreeForm("own", lanes[lo])
    return None


@dataclass(frozen=True)
class OffsetForm:
    lane: str     # 'x' | 'y' | 'z'
    offset: str   # C++: the word the thread of lane index 0 writes (the same for every thread)
    cap: str      # C++: the threads whose lane index is below it (and below the block's extent) write


def offset_form(a, subscript: cindex.Cursor | None, ifs: list[tuple[Span, cindex.Cursor]], scope) -> OffsetForm | None:
    """A write `A[E]` of a one-dimensional declared array where E is one lane coordinate plus an
    offset every thread computes alike (own_index.linear_form); capped by the innermost `if (lane < G)`
    (G alike for every thread) whose then-branch holds it. `ifs`: the kernel's `if`s, their
    then-branch span and condition cursor."""
    if a.bound != "array" or subscript is None:
        return None
    m = _ONE.fullmatch(a.text)
    kids = list(subscript.get_children())
    if not m or m.group(1) != a.base or "[" in m.group(2) or len(kids) != 2:
        return None
    form = linear_form(kids[1], scope)
    if form is None:
        return None
    lanes = [i for i, t in enumerate(form.coef) if t]
    if len(lanes) != 1 or lanes[0] > 2 or form.coef[lanes[0]] != ((1, ()),):
        return None
    lane = COORDS[lanes[0]][-1]
    offset = form.values()[6]
    cap = f"blockDim.{lane}"
    for then, cond in ifs:
        if not _within(a.span, then):
            continue
        parts = [k for k in cond.get_children()]
        while cond.kind in (CK.UNEXPOSED_EXPR, CK.PAREN_EXPR) and len(parts) == 1:
            cond, parts = parts[0], list(parts[0].get_children())
        if cond.kind != CK.BINARY_OPERATOR or len(parts) != 2:
            continue
        sl, sr = scope.unit.span_of(parts[0]), scope.unit.span_of(parts[1])
        if sl is None or sr is None or scope.unit.source(sl.file).text(sl.end, sr.start).strip() != "<":
            continue
        lo, hi = linear_form(parts[0], scope), linear_form(parts[1], scope)
        if lo is None or hi is None or any(hi.coef) or lo.offset or \
                [i for i, t in enumerate(lo.coef) if t] != [lanes[0]] or lo.coef[lanes[0]] != ((1, ()),):
            continue
        cap = hi.values()[6]
        break
    return OffsetForm(lane, offset, cap)


def _within(span: Span, outer: Span) -> bool:
    return span.file == outer.file and outer.start <= span.start and span.end <= outer.end


def guards_of(a, prog, body: Span) -> list[tuple[str, Span]]:
    """The normalised conditions of the plain `if`s in `body` whose then-branch holds access a."""
    out = []
    for b in prog.branches:
        if b.kind != "if" or not b.plain_cond or b.cond is None or not b.arms or b.arms[0] is None:
            continue
        if _within(b.span, body) and _within(a.span, b.arms[0]):
            out.append((_norm(src_text(prog, b.cond)), b.span))
    return out
