"""Accesses to a declared `__shared__` array whose index lies inside the array, proved by integer
arithmetic: where a kernel's quiet version runs, such a site is the access as written (no bounds test).

A quiet site still tests its bounds inline (hirace/quiet.h, quiet_version.h), and the test's result
chooses the address: the access or a sink. The compiler then no longer knows the address is a
shared-memory one, and a tiled product's inner loop (`sum += As[ty][k] * Bs[k][tx]`, unrolled) turns
32 shared loads at fixed offsets into 32 tests, selects and generic loads: the samples' matrixMul ran
its quiet version 7.3 times slower than plain on an H200, its only tests being these
(bench/results/session36_h200). Most such indices are bounded by the block's coordinates and
`for` loops whose bounds are the array's extents; `inside_accesses` proves it.

The argument. For an access `A[i0][i1]...` to an array declared in the kernel with extents E0, E1 ...
(numbers, or a kernel template's parameters), each subscript is written as a linear form
(apart.py's `lin`: literals, macros, unchanged integer parameters and template parameters, the
thread's coordinates with 0 <= threadIdx.d < blockDim.d <= 1024, the variables of the `for` loops
around the access bounded by their start and condition, locals assigned once from these), with what
the `if`s around the access say (a comparison as written, its negation in the `else` branch; a disjunction, such as
`a != b` or the `else` of `a == 0 && b == 0`, as its cases, each of which must leave the index inside). The access is inside when for every subscript neither
`i < 0` nor `i >= E` has an integer solution (affine.feasible, which answers "none" only when it has
shown there is none). Where that needs the block to fit the array, the proof is tried again with
`blockDim.d + l <= E` for each coordinate d the subscript names (l = 0, 1, 2, 3: `temp[tx + 1]` needs
the block one narrower than the array; written so, not as `E - l`, which wraps below zero where E is a
template's extent smaller than l), and the site carries that condition
(conditions.Inside), which the version's host test checks before the version runs. A subscript in
bounds at every level puts the flattened offset in [0, E0 * E1 * ...): a value shown in [0, E) as an
integer is that value in any C++ integer type wide enough to hold E. Where the arithmetic of the
types and of the integers part: a narrowing cast is not followed (lin refuses it); an unsigned value
widened inside a subscript (`(long long)(tx - 1) + 1`) must itself be shown in [0, 2^bits); a condition
that widens one says nothing; an unsigned comparison counts only with both sides shown in [0, 2^bits);
a loop's condition bounds its variable only through casts that keep every value (`(signed char)i <
16` does not); a uniform expression that is not linear is an unknown named by its text and the
declarations it names (a shadowing local is another), and is refused where its text names a macro;
a local's assignment is followed only outside `switch` statements (a case label enters past it); a
change of a name in parentheses (`(i) = 100`) is a change of it (intervals.assignments). Each of these
once let a proof through, as the review of the first version found (tests/test_bounds.py).

Anything the forms do not follow keeps the site's bounds test: an index read from memory, a loop
variable the loop's body changes, a `while` loop's variable, an access through a pointer to the
array, dynamic (`extern`) shared memory, and any expression lin refuses.
"""
from __future__ import annotations

import re

from clang import cindex

from .affine import Lin, feasible
from .apart import ApartAnalysis, DIMS, _Ctx, _thread_ranges, _Unknown
from .conditions import extents

CK = cindex.CursorKind
TK = cindex.TypeKind

_MAX_LESS = 3     # a cap on the block: its extent at most the array's, less at most this (`temp[tx + 1]`)
_MAX_SPLITS = 8   # the guards' disjunctions split on (the first this many; the rest are left out)


def inside_accesses(facts, kernel, cur: cindex.Cursor, params: set[str], changed: set[str], heads: dict,
                    subs: dict) -> dict:
    """Span -> its caps ((d, level, l): `blockDim.d` at most the array's extent at that level less l), for each
    access in the kernel's body to an array the kernel declares (`__shared__`, not extern) whose
    index bounds.py shows inside the array. `heads` and `subs` (subscript expressions by (start,
    end)) come from intervals.KernelFacts.kernel."""
    p = facts.p
    an = ApartAnalysis(facts, kernel, cur, params, changed)
    an.barrier_loops = {loop.hash for loop, _, _ in heads.values()}
    declared: dict[str, tuple[cindex.Cursor, list[Lin]]] = {}
    for c in cur.walk_preorder():
        if c.kind == CK.VAR_DECL and c.type.get_canonical().kind in (TK.CONSTANTARRAY, TK.DEPENDENTSIZEDARRAY):
            d = next((s for s in p.shared if s.name == c.spelling and not s.is_extern), None)
            dims = _dims(c)
            if d is not None and dims:
                declared[c.spelling] = (c, dims)
    out = {}
    for a in p.accesses:
        if a.span.file != kernel.body.file or not (kernel.body.start <= a.span.start and a.span.end <= kernel.body.end):
            continue
        if a.space != "shared" or a.bound != "array" or a.base not in declared:
            continue
        sub = subs.get((a.span.start, a.span.end))
        if sub is None:
            continue
        an.pow2_params.clear()
        try:
            caps = _inside(an, sub, *declared[a.base])
        except (_Unknown, ValueError, AttributeError, KeyError, IndexError):
            continue
        if caps is not None and not an.pow2_params:   # (caps are blockDim's alone: no parameter's power of two)
            out[a.span] = caps
    return out


def _dims(decl: cindex.Cursor) -> list[Lin] | None:
    """The declared array's extents, outermost first: numbers, or a template's parameters."""
    t = decl.type.get_canonical()
    dims: list[Lin] = []
    while t.kind == TK.CONSTANTARRAY:
        dims.append(Lin(const=t.get_array_size()))
        t = t.element_type
    if t.kind not in (TK.CONSTANTARRAY, TK.DEPENDENTSIZEDARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY):
        return dims or None
    written = extents(decl.type.spelling)   # (a template's: as its type writes them)
    params = {k.spelling for k in decl.semantic_parent.get_children()
              if k.kind == CK.TEMPLATE_NON_TYPE_PARAMETER} if decl.semantic_parent is not None else set()
    if written is None:
        return None
    out = [_extent(text, params) for text in written]
    return None if None in out else out


def _extent(text: str, params: set[str]) -> Lin | None:
    """An extent as a template's array type writes it, a sum of numbers, its parameters and their
    multiples (`B`, `B + 1`, `2 * B - 1`), or None."""
    terms = re.findall(r"([+-]?)\s*([^+-]+)", text.strip())
    if not terms or "".join(sign + t for sign, t in terms).replace(" ", "") != text.replace(" ", ""):
        return None
    out = Lin()
    for sign, term in terms:
        factors = [f.strip() for f in term.split("*")]
        k, names = 1, []
        for f in factors:
            if f.isdigit():
                k *= int(f)
            elif f in params:
                names.append(f)
            else:
                return None
        if len(names) > 1:
            return None
        v = Lin.var(f"U:tp:{names[0]}").scale(k) if names else Lin(const=k)
        out = out - v if sign == "-" else out + v
    return out


def _inside(an: ApartAnalysis, sub: cindex.Cursor, decl: cindex.Cursor, dims: list[Lin]):
    """The caps under which `sub` (an access to `decl`) is inside the array, or None."""
    idx = an.subscripts(sub, decl)
    where = an.anc.get(sub.hash)
    if where is None or len(idx) != len(dims):
        return None
    ctx = _Ctx({}, [])
    for f in where:   # the loops holding a barrier around the access: their variable in some round
        lv = an.loop_var(f, True) if f.kind == CK.FOR_STMT and f.hash in an.barrier_loops else None
        if lv is not None:   # (a loop not followed: an index naming its variable is refused, lin)
            ctx.subst[lv.var] = an._round_value(lv, f, an.anc.get(f.hash, []) + [f], ctx, "U:")
    an.rank_used = False
    values = [an.lin(i, where + [sub], ctx) for i in idx]
    widened = list(ctx.widened)   # (the subscripts' own: not what the guards widen)
    an.holds_at(where + [sub], ctx, [])
    if an.rank_used:   # (a thread block's rank is threadIdx.x only in blocks one thread high and deep: no caps say so)
        return None
    known = ctx.cons + _thread_ranges()
    splits = ctx.ors[:_MAX_SPLITS]
    for v, bits in widened:   # an unsigned value widened in a subscript is its integer only in [0, 2^bits)
        if not (_none(known + [v.scale(-1).shift(-1)], splits) and _none(known + [v.shift(-(1 << bits))], splits)):
            return None
    caps: list[tuple[str, int, int]] = []
    for level, (v, extent) in enumerate(zip(values, dims)):
        fits = [dims[lv].shift(-less) - Lin.var(f"U:bd{d}") for d, lv, less in caps]
        if _within(v, extent, known + fits, splits):
            continue
        mine = [d for d in DIMS if v.coef.get(f"T:t{d}")]
        works = lambda less: _within(v, extent, known + fits + [extent.shift(-less) - Lin.var(f"U:bd{d}")  # noqa: E731
                                                                for d in mine], splits)
        for less in range(_MAX_LESS + 1) if mine else ():   # blockDim.d <= extent - less, the widest that does
            if works(less):
                caps += [(d, level, less) for d in mine]
                break
        else:
            less = _widest_less(works, extent) if mine else None
            if less is None:
                return None
            caps += [(d, level, less) for d in mine]
    return tuple(sorted(set(caps)))


def _widest_less(works, extent: Lin) -> int | None:
    """For an extent that is a number E, the least l in (_MAX_LESS, E) for which `works(l)` (the proof
    with `blockDim.d + l <= E`), or None: convolutionSeparable's taps `s_Data[ty][tx + i * 16 + j]`, i
    up to 8 and j from -8 to 8 in a row of 160, are inside for blocks at most 24 wide (l = 136). A
    larger l only assumes more of the block, so the proofs that hold form a range up to E - 1: halved."""
    if extent.coef or extent.const <= _MAX_LESS + 1 or not works(extent.const - 1):
        return None
    lo, hi = _MAX_LESS + 1, extent.const - 1   # (works(hi); the least that works lies in [lo, hi])
    while lo < hi:
        mid = (lo + hi) // 2
        if works(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


def _within(v: Lin, extent: Lin, rows: list[Lin], splits: list[list[list[Lin]]]) -> bool:
    """No integer solution of `rows >= 0` has v < 0 or v >= extent, whichever alternative of each
    of the splits holds."""
    return _none(rows + [v.scale(-1).shift(-1)], splits) and _none(rows + [v - extent], splits)


def _none(rows: list[Lin], splits: list[list[list[Lin]]]) -> bool:
    """`rows >= 0` has no integer solution with any alternative of each split (split only where
    the rows alone may have one)."""
    if not feasible([], rows):
        return True
    if not splits:
        return False
    return all(_none(rows + alt, splits[1:]) for alt in splits[0])
