"""Index expressions that give each thread of a launch its own element.

`out[blockIdx.x * blockDim.x + threadIdx.x]`, or srad's `J[cols * BS * by + BS * bx + cols * ty + tx]`,
names one element per thread: the index is a sum of the six thread and block coordinates times
coefficients that every thread computes alike (literals, the kernel's unchanged integer parameters,
its template's integer non-type parameters (`template <int BS>`: one value per instantiation, named at
the kernel's entry as in its body), object-like macros, `blockDim`, `gridDim`), plus such an offset. Whether two threads can meet depends
on the launch: it does not where the coefficients, sorted by size, each exceed the largest index the
smaller ones reach (a mixed-radix number; hirace/quiet.h `own_index`, evaluated in the kernel).
The program computes the index modulo 2^w (its arithmetic's width, one for the whole sum: a part
computed narrower and then widened is not taken), so distinct sums within a range narrower than
2^31 stay distinct, whatever the offset; a uniform part that is not a sum or product (`n / 2`) is
written again as the program wrote it.

A local variable stands for the value it was given: its one initializer, or, for one that the kernel's
top-level statements assign again (`xIndex = blockIdx.y * TILE_DIM + threadIdx.x;`, transpose),
the last of those definitions before the use (no other statement changes it, nothing takes its
address or a reference to it). Where the scope allows loops (own parameters), the variable of a
counted loop `for (int i = L; i < U; i += S)` (L, U, S uniform; the body never changes i) is
L + S * k for the loop's iteration number k, a seventh coordinate whose extent is the loop's count:
the index then names one element per thread and iteration, so no two threads' elements meet. So is
a local that such a loop steps each round (`at += cols;` as the body's last statement, cols uniform,
the only change of `at` in the loop, whose body leaves no round early): at a use before the step it
is its value before the loop plus cols times the round's number (`Scope.induction`; the loop may
declare its variable before it, `for (i = 0; ...)`). Reads at a form that differs from the written one
only by whole steps of the same loop coefficient (lud's rows read from `offset * dim + offset` and
written from one row below) are one form with it over the rounds either reaches (`along_loop`): where
that form is own, an element both name is one thread's.

`linear_form(expr, scope)` writes an index expression in that form (`LinearForm`), following local
variables that hold such an expression, or says None; `LinearForm.values()` are the C++
expressions of its coefficients and offset; two accesses with equal `key()`s reach the same element
in every thread.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from clang import cindex

from instrument.frontend.parse import ParsedUnit

CK = cindex.CursorKind
TK = cindex.TypeKind

COORDS = ("threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z")
EXTENTS = tuple(f"{d}.{c}" for d in ("blockDim", "gridDim") for c in "xyz")
INTS = (TK.INT, TK.UINT, TK.LONG, TK.ULONG, TK.LONGLONG, TK.ULONGLONG)
_WRAPPERS = (CK.UNEXPOSED_EXPR, CK.PAREN_EXPR)
_CASTS = (CK.CSTYLE_CAST_EXPR, CK.CXX_FUNCTIONAL_CAST_EXPR, CK.CXX_STATIC_CAST_EXPR)
_UNIFORM_OPS = {"/", "%", "<<", ">>", "&", "|", "^"}
# a counted loop's variable types, each with the largest value its count may step to
_LARGEST = {TK.INT: 2147483647, TK.UINT: 4294967295, TK.LONG: 9223372036854775807, TK.LONGLONG: 9223372036854775807,
            TK.ULONG: 9223372036854775807, TK.ULONGLONG: 9223372036854775807}   # (64-bit unsigned: below 2^63 only)
_UNSIGNED = (TK.UINT, TK.ULONG, TK.ULONGLONG)

Term = tuple[int, tuple[str, ...]]   # sign, factors (source texts, multiplied)
_LEAVES = (CK.BREAK_STMT, CK.CONTINUE_STMT, CK.RETURN_STMT, CK.GOTO_STMT, CK.INDIRECT_GOTO_STMT)


class _NotLinear(Exception):
    pass


LOOP = len(COORDS)   # the coordinate of a counted loop's iteration number (scopes that allow loops)
MASK = LOOP + 1      # the coordinate of a butterfly's `G & M` (Fold), while `_lin` builds a form
_MASKED = "mask"     # (the key in `_lin`'s `loops` of that G's form and M)


@dataclass(frozen=True)
class Fold:
    """The butterfly part of an index: R * (G - (G & M)) + (G & M), G a form of the thread's coordinates
    (`inner`, `inner_offset`), M uniform (`mask`, C++), R an integer of at least 2 (`radix`). Where M + 1 is
    a power of two S, G = q * S + r (r = G & M, as two's complement computes it for any G), and the value
    is (R * q) * S + r: apart for apart G. A step of S times k (k below R) added keeps it so: (R * q + k)
    * S + r (sortingNetworks' bitonicMergeGlobal `pos = 2 * i - (i & (stride - 1))`, written at pos and
    pos + stride; fastWalshTransform's radix-4 `((pos - lo) << 2) + lo`, at i0 + 0..3 strides)."""
    inner: tuple[tuple[Term, ...], ...]
    inner_offset: tuple[Term, ...]
    mask: str
    radix: int

    def key(self) -> tuple:
        return tuple(_key_terms(t) for t in self.inner), _key_terms(self.inner_offset), _norm(self.mask), self.radix


def _key_terms(ts) -> tuple:
    return tuple(sorted((s, tuple(sorted(map(_norm, f)))) for s, f in ts))


@dataclass(frozen=True)
class LinearForm:
    coef: tuple[tuple[Term, ...], ...]   # per coordinate of COORDS: a sum of terms
    offset: tuple[Term, ...]
    loop: tuple[tuple[Term, ...], str] | None = None   # a counted loop's: its coefficient, its count (C++)
    fold: Fold | None = None   # a butterfly's part (its coordinates' coefficients not in `coef`), added

    def key(self) -> tuple:
        loop = (_key_terms(self.loop[0]), _norm(self.loop[1])) if self.loop else None
        key = tuple(_key_terms(t) for t in self.coef), _key_terms(self.offset), loop
        return key + (self.fold.key(),) if self.fold else key

    def values(self) -> list[str]:
        """C++ expressions of the six coefficients (COORDS' order) and the offset, as `long long`,
        then, with a loop, its coefficient and count, to be computed at the kernel's entry (a tool's
        runtime decides from them and the launch shape whether the index differs between any two
        threads). A form with a fold: its 9 values (all_values), then its fold's six coefficients, mask
        and radix (runtime `fold_index`)."""
        loop = [_sum(self.loop[0]), f"((long long)({self.loop[1]}))"] if self.loop else []
        if self.fold:
            f = self.fold
            return self.all_values() + [_sum(t) for t in f.inner] + [f"((long long)({f.mask}))", f"{f.radix}ll"]
        return [_sum(t) for t in (*self.coef, self.offset)] + loop

    def all_values(self) -> list[str]:
        """values(), with a loop's coefficient and count (0 and 1) where it has none: the 9 values of
        one form that the runtime's forms_apart takes."""
        loop = [_sum(self.loop[0]), f"((long long)({self.loop[1]}))"] if self.loop else ["0ll", "1ll"]
        return [_sum(t) for t in (*self.coef, self.offset)] + loop


def summed(parts: list[tuple[int, LinearForm]]) -> LinearForm | None:
    """The form of a sum of forms, each with its sign (a parameter moved by `p += E` and then
    indexed: E + index), or None where two of them hold loops."""
    loops = [f.loop for _, f in parts if f.loop]
    folds = [(sign, f.fold) for sign, f in parts if f.fold]
    if len(loops) > 1 or len(folds) > 1 or folds and folds[0][0] < 0:
        return None
    neg = lambda sign, ts: tuple((s * sign, f) for s, f in ts)  # noqa: E731
    coef = tuple(sum((neg(sign, f.coef[i]) for sign, f in parts), ()) for i in range(len(COORDS)))
    offset = sum((neg(sign, f.offset) for sign, f in parts), ())
    loop = next(((neg(sign, f.loop[0]), f.loop[1]) for sign, f in parts if f.loop), None)
    fold = folds[0][1] if folds else None
    if fold and any(_collected(fold.inner[i]) and _collected(coef[i]) for i in range(len(COORDS))):
        return None   # (a move along a coordinate of the butterfly's: its parts no longer apart)
    return LinearForm(coef, offset, loop, fold)


def _collected(terms) -> dict[tuple[str, ...], int]:
    """A sum of terms as {its non-numeric factors, sorted: their integer coefficient}, zeros dropped."""
    out: dict[tuple[str, ...], int] = {}
    for sign, factors in terms:
        k, names = sign, []
        for f in map(_norm, factors):
            if re.fullmatch(r"\(*\d+\)*", f):
                k *= int(f.strip("()"))
            else:
                names.append(f)
        key = tuple(sorted(names))
        out[key] = out.get(key, 0) + k
    return {key: k for key, k in out.items() if k}


def along_loop(w: LinearForm, r: LinearForm) -> LinearForm | None:
    """One form for two that differ only by whole steps of one loop coefficient (lud's rows written
    from `array_offset = (offset + 1) * matrix_dim + offset` and read from `offset * matrix_dim +
    offset`, both moved by matrix_dim a round): the form over the rounds either reaches. Where it names
    one element per thread and round (own_index), an element the two forms share is one thread's."""
    if w.loop is None or r.loop is None or _collected(w.loop[0]) != _collected(r.loop[0]) or w.fold or r.fold:
        return None
    if any(_collected(a) != _collected(b) for a, b in zip(w.coef, r.coef)):
        return None
    step = _collected(w.loop[0])
    diff = _collected(tuple(w.offset) + tuple((-sign, f) for sign, f in r.offset))
    if not step:
        return None
    if not diff:
        shift = 0
    else:
        if set(diff) != set(step):
            return None
        ratios = {diff[key] / step[key] for key in step}
        if len(ratios) != 1 or not float(next(iter(ratios))).is_integer():
            return None
        shift = int(next(iter(ratios)))
    base, other, shift = (r, w, shift) if shift >= 0 else (w, r, -shift)
    nb, no = f"(long long)({base.loop[1]})", f"((long long)({shift}) + (long long)({other.loop[1]}))"
    return LinearForm(w.coef, base.offset, (w.loop[0], f"({nb} > {no} ? {nb} : {no})"))


def stepped(forms: list[LinearForm]) -> LinearForm | None:
    """One form for several that differ only in their offsets, by whole multiples of one step
    (sortingNetworks' `d_DstKey[0]` and `d_DstKey[SHARED_SIZE_LIMIT / 2]` after one move: the lane's
    element and the one half a tile on): the lowest, with the step as its counted-loop coordinate over
    the multiples between lowest and highest (a superset of the elements they name). Where it names
    one element per thread and multiple (own_index), no two threads' elements of any of them meet.
    None where a form has a loop already or the offsets are not such multiples."""
    if len(forms) < 2 or any(f.loop for f in forms):
        return None
    first = forms[0]
    if any((f.fold and f.fold.key()) != (first.fold and first.fold.key()) for f in forms):
        return None
    if any(_collected(a) != _collected(b) for f in forms[1:] for a, b in zip(first.coef, f.coef)):
        return None
    diffs = [_collected(tuple(f.offset) + tuple((-s, x) for s, x in first.offset)) for f in forms]
    some = next((d for d in diffs if d), None)
    if some is None:
        return None
    g = math.gcd(*some.values()) * (1 if some[min(some)] > 0 else -1)
    unit = {key: k // g for key, k in some.items()}   # (its smallest whole step, counting up)
    times = []
    for d in diffs:
        if d and set(d) != set(unit):
            return None
        ratios = {d.get(key, 0) / k for key, k in unit.items()}
        if len(ratios) != 1 or not float(next(iter(ratios))).is_integer():
            return None
        times.append(int(next(iter(ratios))))
    g = math.gcd(*times)
    times = [t // g for t in times]
    step = {key: k * g for key, k in unit.items()}
    low = forms[times.index(min(times))]
    terms = tuple((1 if k > 0 else -1, tuple(names) if k in (1, -1) else (str(abs(k)), *names))
                  for names, k in sorted(step.items()))
    return LinearForm(first.coef, low.offset, (terms, str(max(times) - min(times) + 1)), first.fold)


def _sum(terms: tuple[Term, ...]) -> str:
    if not terms:
        return "0ll"
    parts = []
    for sign, factors in terms:
        prod = " * ".join(f"(long long)({f})" for f in factors) if factors else "1ll"
        parts.append(("- " if sign < 0 else "+ ") + prod)
    text = " ".join(parts)
    return "(" + (text[2:] if text.startswith("+ ") else text) + ")"


def _number(c: cindex.Cursor) -> bool:
    """Does the expression name no pointer or array (`p += q - p` moves p anywhere)?"""
    return not any(x.type.get_canonical().kind in (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY,
                                                   TK.DEPENDENTSIZEDARRAY)
                   for x in c.walk_preorder() if x.kind.is_expression() or x.kind == CK.DECL_REF_EXPR)


def direct(text: str, base: str) -> bool:
    """Does an access expression reach memory through `base` itself (`p[i]`, `p[i].f`, `*p`,
    `p->f`), not through a pointer loaded from there (`p[i].next[j]`, `p->q[0]`)?"""
    t = re.sub(r"\s+", "", text)
    b = re.escape(base)
    if re.fullmatch(rf"(\*{b}|{b}->\w+|\(\*{b}\)\.\w+)(\.\w+)*", t):
        return True
    if not t.startswith(base + "["):
        return False
    depth, i = 0, len(base)
    for i in range(len(base), len(t)):
        depth += t[i] == "["
        depth -= t[i] == "]"
        if depth == 0:
            break
    return depth == 0 and re.fullmatch(r"(\.\w+)*", t[i + 1:]) is not None


def address_taken(name: str, text: str) -> bool:
    """Does `text` take the address of `name` (`&name`, not `a && name`)? Then a pointer may change it."""
    return re.search(r"(?<!&)&\s*" + re.escape(name) + r"\b", text) is not None


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text)


@dataclass
class Scope:
    """What an index expression may name: the kernel's cursor and source, the names it changes
    (KernelFacts.changed), and the macros it defines inside its body."""
    unit: ParsedUnit
    kernel: cindex.Cursor
    body_text: str
    changed: set[str]
    ops: dict = field(default_factory=dict)   # the operators that change each name (intervals.assignments)
    aliased: frozenset = frozenset()   # names a reference or pointer may change
    loops: bool = False         # a counted loop's variable may be a coordinate

    def __post_init__(self):
        self.decls: dict[str, int] = {}
        self.loop_of: dict = {}   # a for-loop's declared variable -> the loop
        for c in self.kernel.walk_preorder():
            if c.kind == CK.VAR_DECL:
                self.decls[c.spelling] = self.decls.get(c.spelling, 0) + 1
            elif c.kind == CK.FOR_STMT:
                init = next(iter(c.get_children()), None)
                if init is not None and init.kind == CK.DECL_STMT:
                    for d in init.get_children():
                        self.loop_of[d] = c
        body = [k for k in self.kernel.get_children() if k.kind == CK.COMPOUND_STMT]
        self.top = list(body[-1].get_children()) if body else []   # the body's statements
        self.rank_is_x = rank_is_x(self.body_text)   # (a thread block's thread_rank() is threadIdx.x: block_rank)
        self._uniform_of: set = set()   # the locals whose value `uniform` or `loop_term` is finding (no cycle)

    def _assigns(self, name: str, inside=None):
        """The operators that change `name` (within the extent `inside`, where given)."""
        for o in self.ops.get(name, ()):
            if inside is None or (o.span.file == inside.file and inside.start <= o.span.start and
                                  o.span.end <= inside.end):
                yield o

    def value_at(self, decl: cindex.Cursor, use: cindex.Cursor) -> cindex.Cursor:
        """The expression a local integer variable holds at `use`: its initializer, or, where
        top-level statements of the kernel assign it again (and nothing else changes it), the last
        definition before `use`."""
        name = decl.spelling
        if name not in self.changed:
            return self.local_value(decl)
        if (not self.ops or self.decls.get(name) != 1 or name in self.aliased or decl.type.get_canonical().kind not in INTS
                or address_taken(name, self.body_text)):
            raise _NotLinear
        defs = self._definitions(decl)
        changes = list(self._assigns(name))
        if any(o.op != "=" for o in changes) or len(changes) != sum(1 for st, _ in defs if st.kind != CK.DECL_STMT):
            raise _NotLinear   # changed elsewhere than by the body's own statements
        before = [v for st, v in defs if st.extent.end.offset <= use.extent.start.offset]
        if not before:
            raise _NotLinear
        return before[-1]

    def _definitions(self, decl: cindex.Cursor) -> list[tuple[cindex.Cursor, cindex.Cursor]]:
        """The kernel's top-level statements that give a local its value, in order: its declaration
        with an initializer, and `name = E;` (any other operator there: _NotLinear), each with E."""
        defs = []
        for st in self.top:
            if st.kind == CK.DECL_STMT and any(d == decl for d in st.get_children()):
                init = [k for k in decl.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF)]
                if len(init) == 1:
                    defs.append((st, init[0]))
            elif st.kind == CK.BINARY_OPERATOR:
                kids = list(st.get_children())
                if len(kids) == 2 and _bare(kids[0]).kind == CK.DECL_REF_EXPR and _bare(kids[0]).referenced == decl:
                    op = self.text(st)[len(self.text(kids[0])):].lstrip()
                    if not op.startswith("=") or op.startswith("=="):
                        raise _NotLinear
                    defs.append((st, kids[1]))
        return defs

    def loop_term(self, decl: cindex.Cursor, loop: cindex.Cursor, widths: set[int]):
        """(L, S, count) of a counted loop `for (int i = L; i < U; i += S)` whose variable is `decl`:
        U and S uniform, the body changes i nowhere (nor declares another i). L is uniform (its C++), or,
        in a grid-stride loop (`for (int i = tid; i < n; i += blockDim.x * gridDim.x)`), a form of the
        thread's coordinates whose every coefficient is a product of extents and non-negative literals
        (its Form): no thread starts below its uniform part, so the count from there bounds every thread's."""
        name = decl.spelling
        kids = list(loop.get_children())
        if not self.loops or len(kids) != 4 or len(list(kids[0].get_children())) != 1 or \
                decl.type.get_canonical().kind not in INTS or name in self.aliased:
            raise _NotLinear
        init = [k for k in decl.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF)]
        if len(init) != 1:
            raise _NotLinear
        cond, step, body = kids[1:]
        if decl.hash in self._uniform_of:
            raise _NotLinear   # (`for (int i = i; ...)`: its own value)
        try:
            lo = self.uniform(init[0])
        except _NotLinear:
            inner: dict = {}
            self._uniform_of.add(decl.hash)
            try:
                start = _lin(init[0], self, 1, widths, inner)
            finally:
                self._uniform_of.discard(decl.hash)
            if inner or not start[0] or not all(_counts_up(t) for ts in start[0].values() for t in ts):
                raise
            _, by, count = self._counted(decl, _sum(tuple(start[1])), cond, step, body)
            return start, by, count
        return self._counted(decl, lo, cond, step, body)

    def _counted(self, decl: cindex.Cursor, lo: str, cond, step, body) -> tuple[str, str, str]:
        """(L, S, count) of a loop over `decl` from the uniform `lo`, given its condition `i < U` (or
        `<=`), step `i++` or `i += S` and body, which changes i nowhere."""
        name = decl.spelling
        ck = list(cond.get_children())
        if cond.kind != CK.BINARY_OPERATOR or len(ck) != 2 or _bare(ck[0]).kind != CK.DECL_REF_EXPR or \
                _bare(ck[0]).referenced != decl:
            raise _NotLinear
        op = self.text(cond)[len(self.text(ck[0])):].strip()
        op = "<=" if op.startswith("<=") else "<" if op.startswith("<") and not op.startswith("<<") else None
        if op is None:
            raise _NotLinear
        hi = self.uniform(ck[1])
        st = _norm(self.text(step))
        if st in (f"{name}++", f"++{name}"):
            by = "1"
        else:
            sk = list(step.get_children())
            if step.kind != CK.COMPOUND_ASSIGNMENT_OPERATOR or len(sk) != 2 or not st.startswith(name + "+="):
                raise _NotLinear
            by = self.uniform(sk[1])
        bsp = self.unit.span_of(body)
        if bsp is None or any(True for _ in self._assigns(name, bsp)) or address_taken(name, self.text(body)) or \
                any(c.kind == CK.VAR_DECL and c.spelling == name for c in body.walk_preorder()):
            raise _NotLinear
        # the values the program compares and adds: U as the comparison's type has it (`unsigned s < n` with
        # n = -1 runs 2^32 - 1 rounds), S as the variable's (`int s += 0xffffffffu` steps by -1); and no round
        # may step past the variable's largest value (it would wrap, and the loop go on below U)
        var, cmp = decl.type.get_canonical(), ck[0].type.get_canonical()
        top = _LARGEST.get(var.kind)
        if top is None or cmp.kind not in _LARGEST or (var.kind in _UNSIGNED) != (cmp.kind in _UNSIGNED):
            raise _NotLinear
        if _bare(ck[1]).type.get_canonical().kind != cmp.kind:
            hi = f"({cmp.spelling})({hi})"
        if by != "1" and _bare(sk[1]).type.get_canonical().kind != var.kind:
            by = f"({var.spelling})({by})"
        L, U, S = (f"(long long)({x})" for x in (lo, hi, by))
        room = f"{U} <= {top}ll - {S}" + (" + 1" if op == "<" else "")
        if var.kind in (TK.ULONG, TK.ULONGLONG) or cmp.kind in (TK.ULONG, TK.ULONGLONG):
            room = f"{U} >= 0 && {room}"   # (a size_t's U from 2^63 on reads negative as long long)
        count = (f"{S} > 0 && {room} ? ({U} - {L} + {S} - 1) / {S} : (1ll << 40)" if op == "<" else
                 f"{S} > 0 && {room} ? ({U} - {L}) / {S} + 1 : (1ll << 40)")
        return lo, by, count

    def loop_count(self, loop: cindex.Cursor) -> str:
        """The count of a counted loop `for (i = L; i < U; i += S)` (i declared there or before it; L,
        U, S uniform; the body changes i nowhere and leaves early nowhere): C++, as loop_term's."""
        kids = list(loop.get_children())
        if not self.loops or len(kids) != 4:
            raise _NotLinear
        init, cond, step, body = kids
        if init.kind == CK.DECL_STMT:
            decls = list(init.get_children())
            if len(decls) != 1:
                raise _NotLinear
            return self.loop_term(decls[0], loop, set())[2]
        ik = list(init.get_children())
        if init.kind != CK.BINARY_OPERATOR or len(ik) != 2 or _bare(ik[0]).kind != CK.DECL_REF_EXPR or \
                _norm(self.text(init)[len(self.text(ik[0])):]).startswith("==") or \
                not _norm(self.text(init)[len(self.text(ik[0])):]).startswith("="):
            raise _NotLinear
        var = _bare(ik[0]).referenced
        if var is None or var.kind != CK.VAR_DECL or self.decls.get(var.spelling) != 1 or \
                var.spelling in self.aliased or address_taken(var.spelling, self.body_text):
            raise _NotLinear
        _, _, count = self._counted(var, self.uniform(ik[1]), cond, step, body)
        return count

    def induction(self, decl: cindex.Cursor, use: cindex.Cursor) -> tuple[cindex.Cursor, str, cindex.Cursor]:
        """(its value before the loop, its step, the loop) of a local integer variable at `use` inside
        a top-level counted loop whose body ends each round with `v += S` (S uniform; the only change
        of v in the loop, after the use, in a body nothing leaves early): v is then that value plus S
        times the round's number. Elsewhere the kernel changes v only by its top-level statements
        `v = E;` (value_at) and such loops, and none of those loops comes between the value and this one."""
        name = decl.spelling
        if (not self.loops or not self.ops or self.decls.get(name) != 1 or name in self.aliased
                or decl.type.get_canonical().kind not in INTS or address_taken(name, self.body_text)):
            raise _NotLinear
        at = use.extent.start.offset
        loop = next((st for st in self.top if st.kind == CK.FOR_STMT and
                     st.extent.start.offset <= at < st.extent.end.offset), None)
        steps = {}   # top-level counted loops whose body ends with `v += S`: loop hash -> (loop, S, its span)
        for st in self.top:
            kids = list(st.get_children()) if st.kind == CK.FOR_STMT else []
            if len(kids) != 4 or kids[3].kind != CK.COMPOUND_STMT:
                continue
            last = list(kids[3].get_children())[-1:]
            lk = list(last[0].get_children()) if last else []
            if not last or last[0].kind != CK.COMPOUND_ASSIGNMENT_OPERATOR or len(lk) != 2 or \
                    _bare(lk[0]).kind != CK.DECL_REF_EXPR or _bare(lk[0]).referenced != decl or \
                    not _norm(self.text(last[0])).startswith(name + "+="):
                continue
            steps[st.hash] = (st, self.uniform(lk[1]), self.unit.span_of(last[0]))
        if loop is None or loop.hash not in steps:
            raise _NotLinear
        body = list(loop.get_children())[3]
        if not body.extent.start.offset <= at < body.extent.end.offset:
            raise _NotLinear   # (in the loop's header: its condition runs once more, after the last round)
        if any(k.kind in _LEAVES for k in body.walk_preorder()):
            raise _NotLinear   # (a round that ends early skips its step)
        incs = {sp.start for _, _, sp in steps.values() if sp is not None}
        for o in self._assigns(name):   # every change: a top-level `v = E;` or one of the loops' steps
            if o.op == "+=" and o.span.start in incs:
                continue
            if o.op != "=" or not any(st.extent.start.offset <= o.span.start and o.span.end <= st.extent.end.offset
                                      and st.kind == CK.BINARY_OPERATOR for st in self.top):
                raise _NotLinear
        step_at = steps[loop.hash][2]
        if step_at is None or step_at.start < use.extent.end.offset:
            raise _NotLinear   # (the use after the step: a round later)
        # the value before the loop: the last top-level definition before it, with no such loop between
        start = loop.extent.start.offset
        defs = [(st, v) for st, v in self._definitions(decl) if st.extent.end.offset <= start]
        if not defs or any(defs[-1][0].extent.end.offset <= st.extent.start.offset and st.extent.end.offset <= start
                           for st, _, _ in steps.values()):
            raise _NotLinear
        return defs[-1][1], steps[loop.hash][1], loop

    def text(self, c: cindex.Cursor) -> str:
        sp = self.unit.span_of(c)
        if sp is None:
            raise _NotLinear
        return self.unit.source(sp.file).text(sp.start, sp.end)

    def local_value(self, decl: cindex.Cursor) -> cindex.Cursor:
        """The initializer of a local integer variable declared once, never changed nor addressed."""
        name = decl.spelling
        if (self.decls.get(name) != 1 or name in self.changed or decl.type.get_canonical().kind not in INTS
                or address_taken(name, self.body_text)):
            raise _NotLinear
        init = [k for k in decl.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF)]
        if len(init) != 1:
            raise _NotLinear
        return init[0]

    def template_value(self, ref: cindex.Cursor) -> bool:
        """Whether `ref` is an integer non-type parameter of the kernel's own template (`template <int
        BS>`): every thread of an instantiation has its one value, and nothing can change it."""
        return (ref.kind == CK.TEMPLATE_NON_TYPE_PARAMETER and ref.type.get_canonical().kind in INTS
                and ref.semantic_parent is not None and ref.semantic_parent == self.kernel)

    def uniform(self, c: cindex.Cursor, var: cindex.Cursor | None = None) -> str:
        """The source text of an expression of unchanged integer parameters, template values, literals, macros,
        `blockDim` and `gridDim` alone (no call; no local variable but `var`, where given, and locals declared
        once with such an expression and never changed, `const int numThreads = blockDim.x * gridDim.x;`,
        written as their initializer), to be computed again at the kernel's entry as the program computes it."""
        locals_: dict[str, str] = {}

        def check(k: cindex.Cursor) -> None:
            if k.kind == CK.MEMBER_REF_EXPR:   # blockDim.x ... (whose `blockDim` is a variable)
                if _norm(self.text(k)) not in EXTENTS:
                    raise _NotLinear
                return
            if k.kind == CK.DECL_REF_EXPR:
                ref = k.referenced
                if var is None and ref is not None and ref.kind == CK.VAR_DECL and ref.semantic_parent is not None \
                        and ref.semantic_parent.kind in (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE):
                    if self.text(k).strip() != ref.spelling or ref.hash in self._uniform_of:
                        raise _NotLinear   # (`int n = n * 2;`: its own value)
                    self._uniform_of.add(ref.hash)
                    try:
                        value = self.uniform(self.local_value(ref))
                    finally:
                        self._uniform_of.discard(ref.hash)
                    # (as the local holds it: converted to its type, `(int)(blockDim.x * gridDim.x)`)
                    locals_[ref.spelling] = f"({ref.type.get_canonical().spelling})({value})"
                    return
                if ref is None or (var is None or ref != var) and not self.template_value(ref) and (
                        ref.kind != CK.PARM_DECL or ref.spelling in self.changed or
                        ref.type.get_canonical().kind not in INTS or address_taken(ref.spelling, self.body_text)):
                    raise _NotLinear   # (`int *p = &n; *p = tid;` changes n through its address)
            elif k.kind not in (*_WRAPPERS, *_CASTS, CK.BINARY_OPERATOR, CK.UNARY_OPERATOR, CK.INTEGER_LITERAL,
                                CK.TYPE_REF):
                raise _NotLinear
            for x in k.get_children():
                check(x)
        check(c)
        text = self.text(c)
        if re.search(r"\+\+|--|[^=!<>]=[^=]|^=", text):
            raise _NotLinear
        for name in set(re.findall(r"[A-Za-z_]\w*", text)):
            if re.search(r"#\s*define\s+" + re.escape(name) + r"\b", self.body_text):
                raise _NotLinear
        if locals_:   # (each declared once in the kernel: its name is that local's; one pass, not one per name)
            pattern = r"(?<![\w.>])(" + "|".join(re.escape(n) for n in sorted(locals_, key=len, reverse=True)) + r")\b"
            text = re.sub(pattern, lambda m: f"({locals_[m.group(1)]})", text)
        return text

    def leaf(self, c: cindex.Cursor) -> str:
        """The source text of a uniform leaf, where it can be written again at the kernel's entry."""
        text = self.text(c).strip()
        if not re.fullmatch(r"[A-Za-z_]\w*|\d[\w.']*", text):
            raise _NotLinear
        if re.search(r"#\s*define\s+" + re.escape(text) + r"\b", self.body_text):
            raise _NotLinear   # a macro defined inside the kernel: not known at its entry
        return text


# what names a thread coordinate but threadIdx.x: then a block's rank is not its x coordinate alone
_OTHER_COORDS = re.compile(r"threadIdx\s*\.\s*[yz]\b|threadIdx\b(?!\s*\.\s*x\b)|\b(thread_index|dim_threads)\s*\(")


def rank_is_x(body_text: str) -> bool:
    """Does a kernel body (its source text) name no thread coordinate but `threadIdx.x`? Then its thread block's
    `thread_rank()` (block_rank) may stand for `threadIdx.x` where a proof asks for blocks one thread high and deep
    whenever it takes a rank so: there the two are equal. Own indices do (own_index's test fails a y or z extent
    above 1 where the index has no y or z coefficient, and no index of such a kernel has one); so do the lanes-apart
    forms (intervals.py, their launch condition); apart.py adds `blockDim.y == 1 && blockDim.z == 1` to any proof
    on a path where it took a rank, and bounds.py proves nothing of an index that holds one. The own-word and tree
    forms (intervals.py `_thread_index_names`) take no rank: their reads' words are bounded by `blockDim.x`."""
    return _OTHER_COORDS.search(body_text) is None


def block_rank(c: cindex.Cursor) -> bool:
    """Is c `g.thread_rank()` of a cooperative_groups::thread_block (a variable or `this_thread_block()`)?"""
    if c.kind != CK.CALL_EXPR or c.spelling != "thread_rank":
        return False
    kids = list(c.get_children())
    if len(kids) != 1 or kids[0].kind != CK.MEMBER_REF_EXPR:
        return False
    obj = list(kids[0].get_children())
    if len(obj) != 1:
        return False
    o = obj[0]
    while o.kind in _WRAPPERS:
        inner = list(o.get_children())
        if len(inner) != 1:
            return False
        o = inner[0]
    t = o.type.get_canonical().spelling.replace("const ", "").replace("volatile ", "").strip()
    return re.fullmatch(r"(::)?cooperative_groups::(__v\d+::)?thread_block", t) is not None


def _counts_up(term: Term) -> bool:
    """A coefficient's term that is never negative: a product of launch extents and non-negative literals."""
    sign, factors = term
    return sign > 0 and all(f in EXTENTS or re.fullmatch(r"\d+[uUlL]*", f) for f in factors)


def _bare(c: cindex.Cursor) -> cindex.Cursor:
    """`c` without the implicit conversions and parentheses around it."""
    while c.kind in _WRAPPERS:
        kids = list(c.get_children())
        if len(kids) != 1:
            break
        c = kids[0]
    return c


def linear_form(expr: cindex.Cursor, scope: Scope, folds: bool = False) -> LinearForm | None:
    """The index `expr` as a LinearForm, or None; one with a butterfly's part (Fold) only where `folds` is
    asked for (its elements are own only as the runtime's fold_index tests them: a caller that reads the
    coefficients and offset alone, tree_forms.py's lanes, would miss the part)."""
    widths: set[int] = set()
    loops: dict = {}
    try:
        coef, offset = _lin(expr, scope, 0, widths, loops)
    except (_NotLinear, ValueError, AttributeError, RecursionError):
        return None
    masked = loops.pop(_MASKED, None)
    if len(widths) > 1 or len(loops) > 1:
        return None   # part of the sum computed in a narrower type: it wrapped on its own; two loops
    loop = None
    if LOOP in coef:
        if not loops:
            return None
        loop = (tuple(coef[LOOP]), next(iter(loops.values())))
    fold = None
    if MASK in coef or masked:
        fold = _fold(coef, masked) if folds else None
        if fold is None:
            return None
    return LinearForm(tuple(tuple(coef.get(i, ())) for i in range(len(COORDS))), tuple(offset), loop, fold)


def _fold(coef: dict, masked) -> Fold | None:
    """The butterfly a form's `G & M` term makes (Fold), its G's coordinates' coefficients taken out of
    `coef`: those must be R times G's, the term's -(R - 1), for a whole R of at least 2; else None."""
    if masked is None or MASK not in coef:
        return None
    (inner, inner_offset), mask, _ = masked
    k = _collected(coef.pop(MASK))
    if set(k) != {()} or 1 - k[()] < 2:
        return None
    radix = 1 - k[()]
    for i in range(len(COORDS)):
        g = _collected(inner.get(i, ()))
        if g:
            if _collected(coef.get(i, ())) != {names: radix * v for names, v in g.items()}:
                return None
            coef.pop(i, None)
    return Fold(tuple(tuple(inner.get(i, ())) for i in range(len(COORDS))), tuple(inner_offset), mask, radix)


def _masked(g: cindex.Cursor, m: cindex.Cursor, scope: Scope, depth: int, widths: set[int], loops: dict) -> Form:
    """`G & M` (M uniform, G a form of the thread's coordinates alone, no loop): a MASK coordinate, G and M
    kept in `loops` (one such term per form; the same G & M again, as a local named twice, is that one)."""
    mask = scope.uniform(m)
    inner: dict = {}
    form = _lin(g, scope, depth + 1, widths, inner)
    if inner or not form[0] or LOOP in form[0] or MASK in form[0]:
        raise _NotLinear
    key = LinearForm(tuple(tuple(form[0].get(i, ())) for i in range(len(COORDS))), tuple(form[1])).key(), _norm(mask)
    seen = loops.get(_MASKED)
    if seen is not None and seen[2] != key:
        raise _NotLinear
    loops[_MASKED] = (form, mask, key)
    return {MASK: [(1, ())]}, []


Form = tuple[dict[int, list[Term]], list[Term]]


def _const(text: str) -> Form:
    return {}, [(1, (text,))]


def _scale(f: Form, by: list[Term]) -> Form:
    coef, off = f
    mul = lambda ts: [(s1 * s2, f1 + f2) for s1, f1 in ts for s2, f2 in by]  # noqa: E731
    return {k: mul(v) for k, v in coef.items()}, mul(off)


def _add(a: Form, b: Form, sign: int = 1) -> Form:
    coef = {k: list(v) for k, v in a[0].items()}
    for k, v in b[0].items():
        coef.setdefault(k, []).extend((s * sign, f) for s, f in v)
    return coef, a[1] + [(s * sign, f) for s, f in b[1]]


def _lin(c: cindex.Cursor, scope: Scope, depth: int, widths: set[int], loops: dict) -> Form:
    if depth > 40:
        raise _NotLinear
    kids = [k for k in c.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF)]
    if c.kind in _WRAPPERS and len(kids) == 1:
        return _lin(kids[0], scope, depth + 1, widths, loops)
    if c.kind in _CASTS and len(kids) == 1:
        t = c.type.get_canonical()
        if t.kind not in INTS or t.get_size() < kids[0].type.get_canonical().get_size():
            raise _NotLinear   # a narrower type may wrap two indices onto one
        return _lin(kids[0], scope, depth + 1, widths, loops)
    if c.kind == CK.INTEGER_LITERAL:
        return _const(scope.leaf(c))
    if c.kind == CK.DECL_REF_EXPR:
        ref = c.referenced
        if ref is None:
            raise _NotLinear
        if ref.kind == CK.PARM_DECL:
            if ref.type.get_canonical().kind not in INTS or ref.spelling in scope.changed or \
                    scope.leaf(c) != ref.spelling:
                raise _NotLinear
            return _const(ref.spelling)
        if scope.template_value(ref):
            if scope.leaf(c) != ref.spelling:
                raise _NotLinear
            return _const(ref.spelling)
        if ref.kind == CK.VAR_DECL and ref.semantic_parent is not None and \
                ref.semantic_parent.kind in (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE):
            loop = scope.loop_of.get(ref)
            if loop is not None:
                lo, by, count = scope.loop_term(ref, loop, widths)
                loops[loop.hash] = count
                if not isinstance(lo, str):   # (a grid-stride loop: the thread's start, then whole strides)
                    return _add(lo, ({LOOP: [(1, (by,))]}, []))
                return {LOOP: [(1, (by,))]}, [(1, (lo,))]
            if any(o.op == "+=" for o in scope.ops.get(ref.spelling, ())):   # an induction variable
                start, by, loop = scope.induction(ref, c)
                loops[loop.hash] = scope.loop_count(loop)
                return _add(_lin(start, scope, depth + 1, widths, loops), ({LOOP: [(1, (by,))]}, []))
            return _lin(scope.value_at(ref, c), scope, depth + 1, widths, loops)
        raise _NotLinear
    if c.kind == CK.CALL_EXPR and scope.rank_is_x and block_rank(c):
        return {0: [(1, ())]}, []
    if c.kind == CK.MEMBER_REF_EXPR:
        text = _norm(scope.text(c))
        if text in COORDS:
            return {COORDS.index(text): [(1, ())]}, []
        if text in EXTENTS:
            return _const(text)
        raise _NotLinear
    if c.kind == CK.BINARY_OPERATOR and len(kids) == 2:
        a, b = kids
        sa, sb, sc = scope.unit.span_of(a), scope.unit.span_of(b), scope.unit.span_of(c)
        if sa is None or sb is None or sc is None or not (sc.start <= sa.start and sa.end <= sb.start
                                                          and sb.end <= sc.end):
            raise _NotLinear
        op = scope.unit.source(sc.file).text(sa.end, sb.start).strip()
        if op in _UNIFORM_OPS:
            try:
                return _const(scope.uniform(c))
            except _NotLinear:
                if op not in ("<<", "&"):
                    raise
            widths.add(c.type.get_canonical().get_size())
            if op == "<<":   # (`x << 2`: x times 4, modulo 2^w as the program computes it)
                by = _bare(b)
                if by.kind == CK.INTEGER_LITERAL:
                    bits = int(scope.leaf(by).rstrip("uUlL"), 0)
                    if not 0 <= bits < 62:
                        raise _NotLinear
                    shift = str(1 << bits)
                else:
                    u = scope.uniform(b)   # (a shift past the width: 0, which no own test passes)
                    shift = f"((long long)({u}) >= 0 && (long long)({u}) < 62 ? 1ll << ({u}) : 0ll)"
                return _scale(_lin(a, scope, depth + 1, widths, loops), [(1, (shift,))])
            for g, m in ((a, b), (b, a)):
                try:
                    return _masked(g, m, scope, depth, widths, loops)
                except _NotLinear:
                    continue
            raise _NotLinear
        fa, fb = _lin(a, scope, depth + 1, widths, loops), _lin(b, scope, depth + 1, widths, loops)
        widths.add(c.type.get_canonical().get_size())
        if op == "+":
            return _add(fa, fb)
        if op == "-":
            return _add(fa, fb, -1)
        if op == "*":
            if not fa[0]:
                return _scale(fb, fa[1])
            if not fb[0]:
                return _scale(fa, fb[1])
            raise _NotLinear
        raise _NotLinear
    if c.kind == CK.UNARY_OPERATOR and len(kids) == 1:
        sk, sc = scope.unit.span_of(kids[0]), scope.unit.span_of(c)
        if sk is None or sc is None or not (sc.start <= sk.start):
            raise _NotLinear
        op = scope.unit.source(sc.file).text(sc.start, sk.start).strip()
        f = _lin(kids[0], scope, depth + 1, widths, loops)
        if op == "+":
            return f
        if op == "-":
            widths.add(c.type.get_canonical().get_size())
            return _add(({}, []), f, -1)
        raise _NotLinear
    raise _NotLinear
