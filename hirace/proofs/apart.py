"""Accesses to a declared `__shared__` array that no other thread's access meets in their barrier
interval, proved from the index expressions by integer arithmetic.

The triangular solves and wavefronts of tiled kernels update a tile in place between barriers:

    for (i = 0; i < 15; i++) {
      if (threadIdx.x > i) {
        for (j = 0; j < i; j++) s[threadIdx.x][i] -= s[threadIdx.x][j] * s[j][i];
        ...
      }
      __syncthreads();
      ...
    }

Thread t writes only row t > i and reads rows j < i of the column i: no other thread's access names
a word it writes in that interval, so none of these accesses can race. `apart_accesses` finds such
accesses: for each barrier interval (a path from a barrier to the next, every thread following the
same one: every loop that holds a barrier has a condition all threads compute alike) and each pair
of accesses to one array in it, at least one a write, it writes both flattened offsets as linear
forms (hirace/proofs/affine.py) of

- each thread's own values (`T:`): its coordinates `threadIdx.x/y/z` (0 <= x < blockDim.x ...) and
  the variables of the barrier-free `for` loops around the access, bounded by their start and
  condition (a block-stride loop, `for (i = threadIdx.x; i < n; i += blockDim.x)`, as its start plus a
  multiple of blockDim.x);
- masks of a power of two: `t & (m - 1)` (fastWalshTransform's and the bitonic sort's butterflies, `lo =
  pos & (stride - 1)`) as t less a multiple of m, the rest in [0, m), where m is alike in every thread and
  shown a positive power of two (a literal, or a loop variable that starts at one, `1 << log2N` or a power of
  two shifted right, steps by shifts and stays above 0 by its loop's condition: pow2_at); an integer
  parameter the kernel only reads (_only_read) counts as a power of two (or 0) where the launch passes one (sortingNetworks'
  `stride = arrayLength / 2`): `((n) & ((n) - 1)) == 0` is then a condition of every proof of the kernel
  (pow2_params), tested at the launch as the others are;
- values every thread of the block holds alike (`U:`): literals and macros, unchanged integer
  parameters, `blockIdx`, `blockDim`, `gridDim` and what they compute alone (each such expression
  one unknown), and the variables of the `for` loops that hold barriers, followed along the path
  (a fresh unknown where the path starts inside the loop, its start value on entry, one step more
  on the way back round; a fresh unknown each round for a loop that steps by shifts, `stride >>= 1`);

Multiples (a block stride's steps, a mask's part above its power of two) are integers of their own to
the elimination, which knows only their bounds; where the equation's multiples of one value m add up
to D (a multiple of m too), the pair is apart only if it is in each case D == 0, D >= m and D <= -m
(multiple_cases): thread t's words `((t - lo) << 2) + lo + j * m`, j < 4, are then its own.
The kernel's one `extern __shared__` array is taken like a declared one, its outer extent the launch's
(not where the kernel names two: they alias, nor where a pointer of its own points into them).

and the conditions of the `if`s around each access (a comparison as written, its negation in the
`else` branch; an unsigned one only where both sides are shown not negative). The pair is apart
when no two distinct threads give equal offsets: no integer solution (affine.feasible) with the
threads differing in x, nor in y, nor in z. A coordinate that cannot be shown apart must have an
extent of 1 in the launch: the access then carries that condition (`blockDim.y == 1`), tested in
the kernel, with its bounds; where either fails the whole check runs. The extents are capped x first,
else y first (a tile indexed `[threadIdx.x][threadIdx.y + 8 * i]` needs a block at most 8 high).

Anything not understood keeps the whole check: a kernel the interval analysis does not take on, a
loop holding a barrier that is not `for (v = E; v < E2; v += c)` with E, E2 alike for every thread
and c constant and nothing leaving its body early, an index that is not linear in these values, an
access to the array through a pointer, an atomic, or a statement that holds a barrier, and any
call or pointer whose reads or writes are not known (intervals.ANY). Offsets are compared as
integers: index arithmetic that wraps past 2^31 lies outside this model.
"""
from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field

from clang import cindex

from .affine import Lin, feasible
from .own_index import address_taken, block_rank, rank_is_x

CK = cindex.CursorKind
TK = cindex.TypeKind

_WRAPPERS = (CK.UNEXPOSED_EXPR, CK.PAREN_EXPR)
_CASTS = (CK.CSTYLE_CAST_EXPR, CK.CXX_FUNCTIONAL_CAST_EXPR, CK.CXX_STATIC_CAST_EXPR)
_INTS = (TK.INT, TK.UINT, TK.LONG, TK.ULONG, TK.LONGLONG, TK.ULONGLONG, TK.SHORT, TK.USHORT,
         TK.CHAR_S, TK.SCHAR, TK.UCHAR, TK.CHAR_U, TK.BOOL)
_UNSIGNED = (TK.UINT, TK.ULONG, TK.ULONGLONG, TK.USHORT, TK.UCHAR, TK.CHAR_U)
_JUMPS = (CK.BREAK_STMT, CK.CONTINUE_STMT, CK.RETURN_STMT, CK.GOTO_STMT, CK.INDIRECT_GOTO_STMT, CK.LABEL_STMT)
_COMPARE = {"<", "<=", ">", ">=", "=="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!="}
_MAX_PATHS = 400
_MIN_WIDTH = 4      # a proof that holds only for blocks narrower than this is not worth its test
DIMS = "xyz"
DYNAMIC = "<extern>"  # the extern __shared__ arrays, which alias each other (intervals.py's word for them)


class _Unknown(Exception):
    """An expression, loop or kernel this analysis does not take on."""


# -- constant expressions: clang evaluates them (macros included) -------------------------------
_lib = None


def _evaluate(c: cindex.Cursor) -> int | None:
    global _lib
    if _lib is None:
        lib = cindex.conf.lib
        lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
        lib.clang_Cursor_Evaluate.argtypes = [cindex.Cursor]
        lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_getKind.restype = ctypes.c_int
        lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
        lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
        _lib = lib
    r = _lib.clang_Cursor_Evaluate(c)
    if not r:
        return None
    try:
        return _lib.clang_EvalResult_getAsLongLong(r) if _lib.clang_EvalResult_getKind(r) == 1 else None
    finally:
        _lib.clang_EvalResult_dispose(r)


def _small(c: cindex.Cursor) -> int | None:
    """The value of a constant expression, or of a literal below 2^15 under conversions clang does not
    evaluate (`stride >>= 1` of an unsigned stride: the 1 converted), which keep such a value; else None."""
    v = _evaluate(c)
    if v is None:
        s = _strip(c)
        v = _evaluate(s) if s.kind == CK.INTEGER_LITERAL else None
        v = v if v is not None and 0 <= v < 1 << 15 else None
    return v


def _kids(c: cindex.Cursor) -> list[cindex.Cursor]:
    return [k for k in c.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF, CK.TEMPLATE_REF)]


def _strip(c: cindex.Cursor) -> cindex.Cursor:
    while c.kind in _WRAPPERS:
        k = _kids(c)
        if len(k) != 1:
            break
        c = k[0]
    return c


def _constant_tree(c: cindex.Cursor) -> bool:
    """Nothing in c names a variable, a member or a call (clang may then evaluate it)."""
    for k in c.walk_preorder():
        if k.kind in (CK.MEMBER_REF_EXPR, CK.CALL_EXPR):
            return False
        if k.kind == CK.DECL_REF_EXPR and (k.referenced is None or k.referenced.kind != CK.ENUM_CONSTANT_DECL):
            return False
    return True


@dataclass
class _LoopVar:
    var: int                   # the variable's declaration (cursor hash)
    name: str
    init: cindex.Cursor
    cond: tuple[str, cindex.Cursor, bool] | None   # (v op bound, as if v on the left), unsigned
    step: int                  # v += step (0 where `by` says otherwise)
    by: str = ""               # 'bd<d>': v += blockDim.<d> (a block-stride loop); 'shift': v >>= k, v <<= k,
                               # v /= 2^k or v *= 2^k (a power of two stays one, or reaches 0: pow2_or_none)


@dataclass
class _Form:
    index: Lin                 # the flattened element offset
    cons: list[Lin]            # >= 0
    mults: dict = field(default_factory=dict)   # its variables that are multiples of a value (_Ctx.mults)


@dataclass
class _Ctx:
    subst: dict[int, Lin]              # the path's values of the barrier loops' variables
    pcons: list[Lin]                   # what the path knows of them (>= 0)
    cons: list[Lin] = field(default_factory=list)
    pending: list[tuple[Lin, Lin, Lin, int]] = field(default_factory=list)   # unsigned: (a, b, a op b row, bits)
    loops_done: set = field(default_factory=set)
    # the guards' disjunctions (`a != b`, `!(a < b && c == d)` ...): each a list of alternatives, each
    # rows >= 0 (bounds.py splits on them; apart.py leaves them out, knowing less)
    ors: list[list[list[Lin]]] = field(default_factory=list)
    # unsigned values widened on their way into an expression (`(long long)(tx - 1)`): (the value, its
    # bits); the forms take them as integers, which holds only where each lies in [0, 2^bits)
    widened: list[tuple[Lin, int]] = field(default_factory=list)
    # variables that are whole multiples of a positive value alike in every thread, by name: (that value,
    # the key of its form) -- a block-stride loop's steps so far (`i = threadIdx.x + k * blockDim.x`), the
    # part of `t & (m - 1)` that the mask takes off t for a power of two m (t = multiple + remainder)
    mults: dict = field(default_factory=dict)


_BLOCK_NAMES = {"blockIdx", "gridDim", "x", "y", "z"}   # (what an invariant's text may name besides declarations)


def _bits(a: cindex.Cursor, b: cindex.Cursor) -> int:
    """The width of the type two integers are compared in (at least int's)."""
    return 8 * max(4, a.type.get_canonical().get_size(), b.type.get_canonical().get_size())


def _thread_ranges() -> list[Lin]:
    out = []
    for d in DIMS:
        t, bd = Lin.var(f"T:t{d}"), Lin.var(f"U:bd{d}")
        out += [t, bd - t - Lin(const=1), bd.shift(-1), Lin(const=1024) - bd]
    return out


def _compare(op: str, a: Lin, b: Lin) -> list[Lin]:
    """`a op b` as rows >= 0 (integers)."""
    if op == "<":
        return [b - a - Lin(const=1)]
    if op == "<=":
        return [b - a]
    if op == ">":
        return [a - b - Lin(const=1)]
    if op == ">=":
        return [a - b]
    if op == "==":
        return [a - b, b - a]
    return []


class ApartAnalysis:
    """One kernel: its cursor tree and what the interval analysis built (intervals.KernelFacts)."""

    def __init__(self, facts, kernel, cur: cindex.Cursor, params: set[str], changed: set[str]):
        self.facts, self.p = facts, facts.p
        self.params, self.changed = params, changed
        self.cur = cur
        self.text = self.p.unit.source(kernel.body.file).text(kernel.body.start, kernel.body.end)
        self.rank_is_x = rank_is_x(self.text)   # (a thread block's thread_rank() is threadIdx.x: own_index.block_rank)
        self.rank_used = False   # set where `lin` took a rank for threadIdx.x (the proof then needs y, z extents of 1)
        # integer parameters taken for powers of two (or 0): every proof of the kernel then needs the launch to pass
        # such (`((n) & ((n) - 1)) == 0`: sortingNetworks' `for (stride = arrayLength / 2; ...)`)
        self.pow2_params: set[str] = set()
        self._read_only: dict[int, bool] = {}   # (parameters: _only_read)
        self.anc: dict[int, list[cindex.Cursor]] = {}
        self._walk(cur, [])
        self._loops: dict[tuple, _LoopVar | None] = {}
        self.barrier_loops: set[int] = set()   # the `for`s that hold a barrier (cursor hashes)

    def _op(self, c: cindex.Cursor) -> str:
        """The operator of a binary (or compound-assignment) operator cursor: the one token of the
        file between its operands (their extents are where the file holds them, macros included)."""
        kids = _kids(c)
        if len(kids) != 2:
            raise _Unknown
        a, b = kids[0].extent.end, kids[1].extent.start
        if a.file is None or b.file is None or a.file.name != b.file.name:
            raise _Unknown
        toks = self.p.unit.source(a.file.name).tokens_in(a.offset, b.offset)
        if len(toks) != 1:
            raise _Unknown
        return toks[0].spelling

    def _text(self, c: cindex.Cursor) -> str:
        """The file's text of c (where the file holds it), without blanks."""
        a, b = c.extent.start, c.extent.end
        if a.file is None or b.file is None or a.file.name != b.file.name or b.offset <= a.offset:
            raise _Unknown
        return "".join(self.p.unit.source(a.file.name).text(a.offset, b.offset).split())

    def _unary(self, c: cindex.Cursor) -> str:
        """The operator of a unary operator cursor ('-', '!', '++' ...), prefix or postfix."""
        kids = _kids(c)
        if len(kids) != 1:
            raise _Unknown
        a, k = c.extent.start, kids[0].extent
        if a.file is None or k.start.file is None or a.file.name != k.start.file.name:
            raise _Unknown
        src = self.p.unit.source(a.file.name)
        toks = src.tokens_in(a.offset, k.start.offset) or src.tokens_in(k.end.offset, c.extent.end.offset)
        if len(toks) != 1:
            raise _Unknown
        return toks[0].spelling

    def _walk(self, c: cindex.Cursor, chain: list[cindex.Cursor]) -> None:
        todo = [(c, chain)]   # (without recursion: a deep expression is no reason to fail)
        while todo:
            c, chain = todo.pop()
            self.anc[c.hash] = chain
            inner = chain + [c]
            todo.extend((k, inner) for k in c.get_children())

    # -- loops -------------------------------------------------------------------------------------
    def loop_var(self, f: cindex.Cursor, barrier: bool) -> _LoopVar | None:
        """`for (v = E; v op B; v += c)` whose body never changes v nor takes its address (and,
        with `barrier`, holds no jump out), or None."""
        key = (f.hash, barrier)
        if key in self._loops:
            return self._loops[key]
        self._loops[key] = got = self._loop_var(f, barrier)
        return got

    def _loop_var(self, f: cindex.Cursor, barrier: bool) -> _LoopVar | None:
        if f.kind != CK.FOR_STMT:
            return None
        kids = list(f.get_children())
        if len(kids) != 4:
            return None
        init, cond, step, body = kids
        if init.kind == CK.DECL_STMT:
            decls = list(init.get_children())
            if len(decls) != 1 or decls[0].kind != CK.VAR_DECL:
                return None
            var = decls[0]
            vals = _kids(var)
            if len(vals) != 1:
                return None
            value = vals[0]
        elif init.kind == CK.BINARY_OPERATOR:
            lhs, value = _kids(init)
            lhs = _strip(lhs)
            if self._op(init) != "=" or lhs.kind != CK.DECL_REF_EXPR or lhs.referenced is None:
                return None
            var = lhs.referenced
        else:
            return None
        if var.kind != CK.VAR_DECL or var.type.get_canonical().kind not in _INTS:
            return None
        name = var.spelling
        s = _strip(step)
        if s.kind == CK.UNARY_OPERATOR:
            k = _kids(s)
            op = self._unary(s)
            if len(k) != 1 or not self._is(k[0], var) or op not in ("++", "--"):
                return None
            by = 1 if op == "++" else -1
        elif s.kind == CK.COMPOUND_ASSIGNMENT_OPERATOR:
            k = _kids(s)
            op = self._op(s)
            n = _evaluate(k[1]) if len(k) == 2 and _constant_tree(k[1]) else None
            if len(k) != 2 or not self._is(k[0], var):
                return None
            try:
                extent = self._text(k[1])
            except _Unknown:
                extent = ""
            if op == "+=" and re.fullmatch(r"blockDim\.[xyz]", extent) and not barrier:
                kind = "bd" + extent[-1]   # (a block-stride loop: alike in no two threads of a row)
            elif op in (">>=", "/=") and n is not None and n >= 1 and (op == ">>=" or n & (n - 1) == 0):
                kind = ">>"
            elif op in ("<<=", "*=") and n is not None and n >= 1 and (op == "<<=" or n & (n - 1) == 0):
                kind = "<<"
            else:
                kind = ""
            if kind:
                by = 0
            elif n is None or op not in ("+=", "-=") or n == 0:
                return None
            else:
                by = n if op == "+=" else -n
        else:
            return None
        c = _strip(cond)
        got = None
        if c.kind == CK.BINARY_OPERATOR:
            op = self._op(c)
            a, b = _kids(c)
            unsigned = _bits(a, b) if (a.type.get_canonical().kind in _UNSIGNED or
                                       b.type.get_canonical().kind in _UNSIGNED) else 0
            if op in ("<", "<=", ">", ">=") and self._is(a, var):
                got = (op, b, unsigned)
            elif op in ("<", "<=", ">", ">=") and self._is(b, var):
                got = ({"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op], a, unsigned)
        bsp = self.p.unit.span_of(body)
        if bsp is None or name in self.facts.changed(bsp) or address_taken(name, self.text):
            return None
        if barrier and any(k.kind in _JUMPS for k in body.walk_preorder()):
            return None
        return _LoopVar(var.hash, name, value, got, by, kind if by == 0 else "")

    def _round_value(self, lv: _LoopVar, f: cindex.Cursor, where: list[cindex.Cursor], ctx: _Ctx, kind: str) -> Lin:
        """A loop variable in some round of its loop f (whose ancestors and itself are `where`): a
        fresh unknown of `kind` ('T:' each thread's own, 'U:' alike in every thread), or start + step
        * k for a fresh round k >= 0 where the step is not one; what holds of it goes to ctx.cons."""
        value = Lin.var(f"{kind}{lv.name}@{f.hash}")
        if lv.by.startswith("bd"):   # start + a multiple of the block's extent (alike in no two threads)
            m = f"{kind}{lv.name}#bs@{f.hash}"
            value = self.lin(lv.init, where, ctx) + Lin.var(m)
            ctx.cons.append(Lin.var(m))
            ctx.mults[m] = Lin.var(f"U:{lv.by}")
        elif abs(lv.step) > 1:
            try:
                k = Lin.var(f"{kind}{lv.name}#k@{f.hash}")
                value = self.lin(lv.init, where, ctx) + k.scale(lv.step)
                ctx.cons.append(k)
            except _Unknown:
                pass
        key = (f.hash, kind)
        if key not in ctx.loops_done:
            ctx.loops_done.add(key)
            ctx.cons += self.loop_rows(lv, value, where, ctx)
        return value

    @staticmethod
    def _is(c: cindex.Cursor, var: cindex.Cursor) -> bool:
        """Is c the variable var, maybe converted to a type that holds its every value (no cast that
        narrows or changes signedness: `(signed char)i < 16` is no bound on i)?"""
        c = _strip(c)
        while c.kind in _CASTS + _WRAPPERS and len(_kids(c)) == 1:
            k = _kids(c)[0]
            t, u = c.type.get_canonical(), k.type.get_canonical()
            if c.kind != CK.PAREN_EXPR and (t.kind not in _INTS or u.kind not in _INTS or t.get_size() < u.get_size()
                                            or (t.kind in _UNSIGNED) != (u.kind in _UNSIGNED)):
                return False
            c = k
        return c.kind == CK.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash == var.hash

    def loop_rows(self, lv: _LoopVar, value: Lin, where: list[cindex.Cursor], ctx: _Ctx) -> list[Lin]:
        """What holds of a loop variable with `value` inside its body: from its start on in the
        step's direction, and its condition (an unsigned one only with both sides not negative)."""
        rows = []
        try:
            if lv.by in ("", "bdx", "bdy", "bdz"):   # (a power-of-two step may go either way: none)
                start = self.plain_lin(lv.init, where, ctx)
                rows.append(value - start if lv.step > 0 or lv.by else start - value)
        except _Unknown:
            pass
        if lv.cond is not None:
            op, bound, unsigned = lv.cond
            try:
                b = self.plain_lin(bound, where, ctx)
                if unsigned:
                    ctx.pending += [(value, b, r, unsigned) for r in _compare(op, value, b)]
                else:
                    rows += _compare(op, value, b)
            except _Unknown:
                pass
        return rows

    # -- expressions -------------------------------------------------------------------------------
    def plain_lin(self, c: cindex.Cursor, anc: list[cindex.Cursor], ctx: _Ctx) -> Lin:
        """lin, for what a condition says: one that widens an unsigned value is refused (`(long
        long)(tx - 1) >= 0` holds for thread 0 too, where tx - 1 wrapped)."""
        n = len(ctx.widened)
        try:
            v = self.lin(c, anc, ctx)
        finally:
            grew = len(ctx.widened) > n
            del ctx.widened[n:]
        if grew:
            raise _Unknown
        return v

    def lin(self, c: cindex.Cursor, anc: list[cindex.Cursor], ctx: _Ctx, depth: int = 0) -> Lin:
        """The value of integer expression c (whose ancestors are anc) as a linear form."""
        if depth > 60:
            raise _Unknown
        kids = _kids(c)
        t = c.type.get_canonical()
        if c.kind in _WRAPPERS + _CASTS and len(kids) == 1:
            u = kids[0].type.get_canonical()
            if c.kind != CK.PAREN_EXPR and (t.kind not in _INTS or t.get_size() < u.get_size()):
                raise _Unknown   # not an integer, or narrower: it may wrap
            inner = self.lin(kids[0], anc + [c], ctx, depth + 1)
            if c.kind != CK.PAREN_EXPR and u.kind in _UNSIGNED and t.get_size() > u.get_size() and not inner.is_const():
                ctx.widened.append((inner, 8 * u.get_size()))   # (its value, wrapped, is what widens)
            return inner
        if c.kind == CK.INTEGER_LITERAL or (c.kind in (CK.BINARY_OPERATOR, CK.UNARY_OPERATOR, CK.DECL_REF_EXPR)
                                            and _constant_tree(c)):
            v = _evaluate(c)
            if v is None:
                raise _Unknown
            return Lin(const=v)
        inner = anc + [c]
        if c.kind == CK.CALL_EXPR and self.rank_is_x and block_rank(c):
            self.rank_used = True   # (equal to threadIdx.x only in blocks one thread high and deep: the caller's)
            return Lin.var("T:tx")
        if c.kind == CK.DECL_REF_EXPR:
            return self._name(c, anc, ctx, depth)
        if c.kind == CK.MEMBER_REF_EXPR:
            text = self._text(c)
            if text.startswith("threadIdx.") and text[-1] in DIMS and len(text) == 11:
                return Lin.var(f"T:t{text[-1]}")
            if text.startswith("blockDim.") and text[-1] in DIMS and len(text) == 10:
                return Lin.var(f"U:bd{text[-1]}")
            if text in ("blockIdx.x", "blockIdx.y", "blockIdx.z", "gridDim.x", "gridDim.y", "gridDim.z"):
                return Lin.var(f"U:{text}")
            raise _Unknown
        if c.kind == CK.BINARY_OPERATOR and len(kids) == 2:
            op = self._op(c)
            if op in ("+", "-", "*", "<<"):
                a = self.lin(kids[0], inner, ctx, depth + 1)
                b = self.lin(kids[1], inner, ctx, depth + 1)
                if op == "+":
                    return a + b
                if op == "-":
                    return a - b
                if op == "<<" and b.is_const() and 0 <= b.const < 31:
                    return a.scale(1 << b.const)
                if op == "*" and a.is_const():
                    return b.scale(a.const)
                if op == "*" and b.is_const():
                    return a.scale(b.const)
            if op == "&":
                got = self._masked(c, kids, inner, ctx, depth)
                if got is not None:
                    return got
            return self._invariant(c, inner, ctx, depth)
        if c.kind == CK.UNARY_OPERATOR and len(kids) == 1:
            op = self._unary(c)
            if op in ("-", "+"):
                v = self.lin(kids[0], inner, ctx, depth + 1)
                return v.scale(-1) if op == "-" else v
        raise _Unknown

    # -- masks of a power of two: `t & (m - 1)` is t less a multiple of m, in [0, m) ------------------
    def _masked(self, c: cindex.Cursor, kids: list[cindex.Cursor], anc, ctx: _Ctx, depth: int) -> Lin | None:
        """`t & (m - 1)` (either way round; `t & 31`) for m a positive power of two alike in every thread
        (pow2_at): t - q, q a fresh multiple of m (ctx.mults), with 0 <= t - q < m. In two's complement this
        holds of every t, negative ones too. None where the mask is not of that form."""
        for t_c, m_c in ((kids[0], kids[1]), (kids[1], kids[0])):
            m = self._modulus(m_c, anc, ctx, depth)
            if m is None:
                continue
            t = self.lin(t_c, anc, ctx, depth + 1)
            kind = "T:" if any(v.startswith("T:") for v in t.coef) else "U:"
            # (named by what it is a function of: the same t and m in one form give the same q)
            q = f"{kind}mask@({t!r})%({m!r})"
            rest = t - Lin.var(q)
            ctx.cons += [rest, m.shift(-1) - rest, m.shift(-1)]
            ctx.mults[q] = m
            return rest
        return None

    def _modulus(self, c: cindex.Cursor, anc, ctx: _Ctx, depth: int) -> Lin | None:
        """m, for a mask `m - 1` (or a constant 2^k - 1) whose m is a positive power of two alike in every
        thread, else None."""
        c = _strip(c)
        if _constant_tree(c):
            v = _evaluate(c)
            return Lin(const=v + 1) if v is not None and v >= 0 and (v + 1) & v == 0 else None
        k = _kids(c)
        try:
            if c.kind != CK.BINARY_OPERATOR or len(k) != 2 or self._op(c) != "-" or _small(k[1]) != 1 \
                    or not _constant_tree(k[1]) or not self.pow2_at(k[0], anc + [c]):
                return None
            m = self.lin(k[0], anc + [c], ctx, depth + 1)
        except _Unknown:
            return None
        return m if all(v.startswith("U:") for v in m.coef) else None

    def alike(self, c: cindex.Cursor, anc, depth: int = 0) -> bool:
        """Does every thread of a block compute c alike: literals, unchanged integer parameters, template
        values, blockIdx, blockDim and gridDim, the variables of the barrier loops around it (each alike:
        apart_accesses), and locals declared once with such a value and never changed, through any operator
        but a call, a subscript or a dereference?"""
        if depth > 30:
            return False
        todo = [c]
        while todo:
            k = todo.pop()
            if k.kind in (CK.CALL_EXPR, CK.ARRAY_SUBSCRIPT_EXPR, CK.CONDITIONAL_OPERATOR) or (
                    k.kind == CK.UNARY_OPERATOR and self._unary_safe(k) in ("*", "&", "++", "--", "")):
                return False
            if k.kind == CK.MEMBER_REF_EXPR:
                try:
                    text = self._text(k)
                except _Unknown:
                    return False
                if not re.fullmatch(r"(blockIdx|blockDim|gridDim)\.[xyz]", text):
                    return False
                continue   # (its `blockDim` is a variable of a struct type)
            todo.extend(k.get_children())
            if k.kind == CK.DECL_REF_EXPR:
                ref = k.referenced
                if ref is None:
                    return False
                if ref.kind == CK.PARM_DECL:
                    if ref.type.get_canonical().kind not in _INTS or ref.spelling in self.changed or \
                            address_taken(ref.spelling, self.text):
                        return False
                elif ref.kind in (CK.TEMPLATE_NON_TYPE_PARAMETER, CK.ENUM_CONSTANT_DECL):
                    continue
                elif ref.kind == CK.VAR_DECL and ref.type.get_canonical().kind in _INTS:
                    loop = next((f for f in reversed(anc) if f.kind == CK.FOR_STMT and
                                 len(list(f.get_children())) == 4 and self._assigns(list(f.get_children())[0], ref)),
                                None)
                    if loop is not None:
                        if loop.hash not in self.barrier_loops:
                            return False
                        continue
                    vals = _kids(ref)
                    where = self.anc.get(ref.hash)
                    if ref.spelling in self.changed or address_taken(ref.spelling, self.text) or len(vals) != 1 or \
                            where is None or not self.alike(vals[0], where + [ref], depth + 1):
                        return False
                else:
                    return False
        return True

    def _unary_safe(self, c: cindex.Cursor) -> str:
        try:
            return self._unary(c)
        except _Unknown:
            return ""

    def pow2_at(self, c: cindex.Cursor, anc) -> bool:
        """Is c a positive power of two where it is evaluated: a constant one, or the variable of a `for`
        around it whose condition keeps it above 0 (`stride > 0`) and whose every value is a power of two
        or not positive (pow2_or_none)?"""
        c = _strip(c)
        if _constant_tree(c):
            v = _evaluate(c)
            return v is not None and v >= 1 and v & (v - 1) == 0
        if c.kind != CK.DECL_REF_EXPR or c.referenced is None:
            return False
        for i in range(len(anc) - 1, -1, -1):
            f = anc[i]
            kids = list(f.get_children()) if f.kind == CK.FOR_STMT else []
            if len(kids) != 4 or not self._assigns(kids[0], c.referenced):
                continue
            if i + 1 >= len(anc) or anc[i + 1].hash != kids[3].hash:
                return False   # (in the loop's header)
            lv = self.loop_var(f, f.hash in self.barrier_loops)
            if lv is None or lv.var != c.referenced.hash or lv.cond is None:
                return False
            op, bound, _ = lv.cond
            b = _small(bound) if _constant_tree(bound) else None   # (0 or 1 in any type)
            above = (op == ">" and b == 0) or (op == ">=" and b == 1)
            return above and self.pow2_or_none(c, anc, 0)
        return False

    def pow2_or_none(self, c: cindex.Cursor, anc, depth: int) -> bool:
        """Is every value c may hold a power of two, 0, or (of a signed type) negative? Literals, `1 << e`,
        such a value shifted right or divided by a power of two, shifted left or multiplied by one where its
        type is unsigned (a signed one may come back positive), conversions that keep every value or wrap
        a power of two to one, 0 or a negative one, locals declared once with such a value and never
        changed, and the variables of `for`s that start at such a value and step by such shifts."""
        if depth > 30:
            return False
        kids = _kids(c)
        t = c.type.get_canonical()
        if t.kind in _INTS and _constant_tree(c):   # (in its own type: `uint size = 2`)
            v = _small(c)
            if v is None:
                return False
            if t.kind in _UNSIGNED:
                v &= (1 << (8 * t.get_size())) - 1
            return v <= 0 or v & (v - 1) == 0
        if c.kind in _WRAPPERS + _CASTS and len(kids) == 1:
            u = kids[0].type.get_canonical()
            if t.kind not in _INTS or u.kind not in _INTS:
                return False
            ts, us = t.kind not in _UNSIGNED, u.kind not in _UNSIGNED
            if us and (not ts or t.get_size() < u.get_size()):
                return False   # (a signed value to unsigned, or narrowed: -6 may come out as 6, or 2^64 - 6)
            return self.pow2_or_none(kids[0], anc + [c], depth + 1)
        if t.kind not in _INTS:
            return False
        if c.kind == CK.BINARY_OPERATOR and len(kids) == 2:
            try:
                op = self._op(c)
            except _Unknown:
                return False
            a, b = kids
            nb = _small(b) if _constant_tree(b) else None
            if op == "<<" and _constant_tree(a) and _small(a) == 1:
                return True   # (2^e; past the type's width, 0 or its most negative value)
            if op in (">>", "<<") and nb is not None and nb >= 0 or op in ("/", "*") and nb is not None and \
                    nb >= 1 and nb & (nb - 1) == 0:
                if op in ("<<", "*") and t.kind not in _UNSIGNED:
                    return False
                return self.pow2_or_none(a, anc + [c], depth + 1)
            return False
        if c.kind != CK.DECL_REF_EXPR or c.referenced is None:
            return False
        ref = c.referenced
        if ref.kind == CK.PARM_DECL and ref.spelling in self.params and ref.spelling not in self.changed and \
                not address_taken(ref.spelling, self.text) and self._only_read(ref):
            # (an integer parameter: one value in the launch, a power of two (or 0) where the launch says so:
            # a condition of every proof of the kernel, pow2_params)
            self.pow2_params.add(ref.spelling)
            return True
        if ref.kind != CK.VAR_DECL or address_taken(ref.spelling, self.text):
            return False
        for i in range(len(anc) - 1, -1, -1):   # the variable of a `for` around the use
            f = anc[i]
            kids = list(f.get_children()) if f.kind == CK.FOR_STMT else []
            if len(kids) != 4 or not self._assigns(kids[0], ref):
                continue
            lv = self.loop_var(f, f.hash in self.barrier_loops)
            if lv is None or lv.var != ref.hash or lv.by not in (">>", "<<") or (
                    lv.by == "<<" and ref.type.get_canonical().kind not in _UNSIGNED):
                return False
            return self.pow2_or_none(lv.init, self.anc.get(lv.init.hash, anc[:i + 1]), depth + 1)
        if ref.spelling in self.changed:
            return False
        vals = _kids(ref)
        where = self.anc.get(ref.hash)
        return len(vals) == 1 and where is not None and self.pow2_or_none(vals[0], where + [ref], depth + 1)

    def _only_read(self, ref: cindex.Cursor) -> bool:
        """Is every use of parameter `ref` in the kernel a read of its value (the implicit conversion of a plain
        integer lvalue to its value), never an lvalue that may change it (`((int &)n) = 12`, `(c ? n : m) =
        12`, bound to a reference, assigned)? Then it holds its launch value throughout."""
        if ref.hash not in self._read_only:
            ok = True
            for c in self.cur.walk_preorder():
                if c.kind != CK.DECL_REF_EXPR or c.referenced is None or c.referenced.hash != ref.hash:
                    continue
                up = self.anc.get(c.hash)
                parent = up[-1] if up else None
                ok = ok and parent is not None and parent.kind == CK.UNEXPOSED_EXPR and \
                    parent.type.get_canonical().kind in _INTS and not parent.type.is_const_qualified() and \
                    parent.type.get_canonical().kind == ref.type.get_canonical().kind
            self._read_only[ref.hash] = ok
        return self._read_only[ref.hash]

    def _invariant(self, c: cindex.Cursor, anc, ctx: _Ctx, depth: int) -> Lin:
        """An expression of values that never change in the kernel (parameters, blockIdx ...) that is
        not linear: one unknown, named by its text."""
        refs = set()
        for k in c.walk_preorder():
            if k.kind == CK.CALL_EXPR:
                raise _Unknown
            if k.kind in (CK.DECL_REF_EXPR, CK.MEMBER_REF_EXPR):
                v = self.lin(k, anc, _Ctx({}, []), depth + 1)   # (no loop variable: ctx unused)
                if any(not (n.startswith("U:") and "@" not in n) or n.startswith("U:bd") for n in v.coef):
                    raise _Unknown
                if k.kind == CK.DECL_REF_EXPR and k.referenced is not None:
                    refs.add((k.spelling, k.referenced.hash))
        # (named by its text and the declarations it names, so that a local shadowing a name is another
        # unknown; a name in the text that no declaration here gives is a macro's, which may change
        # between two uses: not taken)
        text = self._text(c)
        known = {n for n, _ in refs} | _BLOCK_NAMES
        if set(re.findall(r"[A-Za-z_]\w*", text)) - known:
            raise _Unknown
        return Lin.var("U:(" + text + ")#" + ",".join(f"{n}@{h}" for n, h in sorted(refs)))

    def _name(self, c: cindex.Cursor, anc: list[cindex.Cursor], ctx: _Ctx, depth: int) -> Lin:
        ref = c.referenced
        if ref is None:
            raise _Unknown
        if ref.kind == CK.PARM_DECL:
            if ref.type.get_canonical().kind not in _INTS or ref.spelling in self.changed or \
                    address_taken(ref.spelling, self.text):
                raise _Unknown   # (changed through its address: not alike in every thread)
            return Lin.var(f"U:p:{ref.spelling}")
        if ref.kind == CK.TEMPLATE_NON_TYPE_PARAMETER:   # (one value in every thread of a launch)
            return Lin.var(f"U:tp:{ref.spelling}")
        if ref.kind != CK.VAR_DECL or ref.type.get_canonical().kind not in _INTS:
            raise _Unknown
        # the variable of a `for` around the use
        for i in range(len(anc) - 1, -1, -1):
            f = anc[i]
            if f.kind != CK.FOR_STMT:
                continue
            kids = list(f.get_children())
            if len(kids) != 4 or not self._assigns(kids[0], ref):
                continue
            if i + 1 >= len(anc) or anc[i + 1].hash != kids[3].hash:
                raise _Unknown   # in the loop's header
            if f.hash in self.barrier_loops:
                if ref.hash not in ctx.subst:
                    raise _Unknown
                return ctx.subst[ref.hash]
            lv = self.loop_var(f, False)
            if lv is None or lv.var != ref.hash:
                raise _Unknown
            return self._round_value(lv, f, anc[:i + 1], ctx, "T:")
        # (a `const` local keeps its value whatever assigns another variable of its name)
        fixed = ref.type.is_const_qualified()
        if ref.spelling in self.changed and not fixed:
            return self._assigned(ref, anc, ctx, depth)
        # a local declared once with its value, never changed nor addressed
        # (names are compared as written: a name nothing assigns is never assigned, whichever of its
        # declarations a use refers to)
        if (ref.spelling in self.changed and not fixed) or address_taken(ref.spelling, self.text):
            raise _Unknown
        vals = _kids(ref)
        where = self.anc.get(ref.hash)
        if len(vals) != 1 or where is None:
            raise _Unknown
        return self.lin(vals[0], where + [ref], ctx, depth + 1)

    def _assigned(self, ref: cindex.Cursor, anc: list[cindex.Cursor], ctx: _Ctx, depth: int) -> Lin:
        """A variable the kernel assigns, at a use that the statement `v = E;` before it in an
        enclosing block reaches with nothing assigning v in between (nor after it in the statement
        that holds the use: a loop there could bring that round), E naming only values that never
        change (thread coordinates, parameters, literals)."""
        name = ref.spelling
        if address_taken(name, self.text):
            raise _Unknown
        if any(a.kind == CK.SWITCH_STMT for a in anc):
            raise _Unknown   # (a case label enters a block past the assignments before it)
        for i in range(len(anc) - 1, -1, -1):
            block = anc[i]
            if block.kind != CK.COMPOUND_STMT or i + 1 >= len(anc):
                continue
            stmts = list(block.get_children())
            holder = next((k for k, s in enumerate(stmts) if s.hash == anc[i + 1].hash), None)
            if holder is None:
                raise _Unknown
            for s in reversed(stmts[:holder]):
                span = self.p.unit.span_of(s)
                if span is None:
                    raise _Unknown
                if name not in self.facts.changed(span):
                    continue
                e = _strip(s)
                k = _kids(e) if e.kind == CK.BINARY_OPERATOR else []
                if len(k) != 2 or self._op(e) != "=" or not self._is(k[0], ref):
                    raise _Unknown
                sp, hold = self.p.unit.span_of(s), self.p.unit.span_of(stmts[holder])
                if sp is None or hold is None or any(
                        self._sets(o, name) and sp.end <= o.span.start and o.span.end <= hold.end
                        for o in self.p.operators if o.span.file == sp.file):
                    raise _Unknown
                fresh = _Ctx({}, [])
                v = self.lin(k[1], self.anc.get(e.hash, anc[:i + 1]) + [e], fresh, depth + 1)
                if fresh.widened:
                    raise _Unknown   # (a widened unsigned value: not followed here)
                if any(n.startswith("U:") and "@" in n for n in v.coef) or \
                        any(n.startswith("T:") and n[2:] not in ("tx", "ty", "tz") for n in v.coef):
                    raise _Unknown
                return v
            hold = self.p.unit.span_of(stmts[holder])
            if hold is None or name in self.facts.changed(hold):
                raise _Unknown   # assigned in the statement that holds the use, before it
        raise _Unknown

    def _sets(self, o, name: str) -> bool:
        """Does operator o assign the variable `name`?"""
        if not o.operands or not o.assigns():
            return False
        return self.p.unit.source(o.operands[0].file).text(o.operands[0].start, o.operands[0].end).strip() == name

    @staticmethod
    def _assigns(init: cindex.Cursor, var: cindex.Cursor) -> bool:
        """Does a `for`'s init statement declare or assign var?"""
        if init.kind == CK.DECL_STMT:
            return any(d.hash == var.hash for d in init.get_children())
        if init.kind == CK.BINARY_OPERATOR:
            k = _kids(init)
            return bool(k) and ApartAnalysis._is(k[0], var)
        return False

    # -- conditions of the `if`s around an access --------------------------------------------------
    def guards(self, anc: list[cindex.Cursor], ctx: _Ctx) -> None:
        for i, f in enumerate(anc[:-1]):
            if f.kind != CK.IF_STMT:
                continue
            kids = list(f.get_children())
            if len(kids) < 2 or kids[0].kind in (CK.DECL_STMT, CK.VAR_DECL):
                continue
            nxt = anc[i + 1].hash
            if nxt == kids[1].hash:
                self._cond(kids[0], anc[:i + 1], ctx, True)
            elif len(kids) > 2 and nxt == kids[2].hash:
                self._cond(kids[0], anc[:i + 1], ctx, False)

    def _cond(self, c: cindex.Cursor, anc, ctx: _Ctx, holds: bool) -> None:
        c = _strip(c)
        try:
            op = self._unary(c) if c.kind == CK.UNARY_OPERATOR else self._op(c) if c.kind == CK.BINARY_OPERATOR else ""
        except _Unknown:
            return
        if op == "!" and c.kind == CK.UNARY_OPERATOR:
            return self._cond(_kids(c)[0], anc + [c], ctx, not holds)
        if c.kind != CK.BINARY_OPERATOR:
            return
        a, b = _kids(c)
        if (op == "&&" and holds) or (op == "||" and not holds):   # (both hold; neither holds)
            self._cond(a, anc + [c], ctx, holds)
            self._cond(b, anc + [c], ctx, holds)
            return
        if op in ("&&", "||") or (op == "!=" and holds) or (op == "==" and not holds):   # (a disjunction)
            alts = self._alternatives(c, anc, ctx, holds)
            if alts:
                ctx.ors.append(alts)
            return
        if op not in _COMPARE:
            return
        if not holds:
            op = _NEGATE[op]
        try:
            la, lb = self.plain_lin(a, anc + [c], ctx), self.plain_lin(b, anc + [c], ctx)
        except _Unknown:
            return
        if a.type.get_canonical().kind in _UNSIGNED or b.type.get_canonical().kind in _UNSIGNED:
            ctx.pending += [(la, lb, r, _bits(a, b)) for r in _compare(op, la, lb)]
        else:
            ctx.cons += _compare(op, la, lb)

    def _alternatives(self, c: cindex.Cursor, anc, ctx: _Ctx, holds: bool, depth: int = 0) -> list[list[Lin]] | None:
        """Condition c (or, not `holds`, its negation) as alternatives, one of which holds, each rows
        >= 0; None where a part is not a signed comparison of linear forms (or they grow past 16)."""
        c = _strip(c)
        if depth > 8:
            return None
        try:
            op = self._unary(c) if c.kind == CK.UNARY_OPERATOR else self._op(c) if c.kind == CK.BINARY_OPERATOR else ""
        except _Unknown:
            return None
        if op == "!" and c.kind == CK.UNARY_OPERATOR:
            return self._alternatives(_kids(c)[0], anc + [c], ctx, not holds, depth + 1)
        if c.kind != CK.BINARY_OPERATOR:
            return None
        a, b = _kids(c)
        if op in ("&&", "||"):
            xs = self._alternatives(a, anc + [c], ctx, holds, depth + 1)
            ys = self._alternatives(b, anc + [c], ctx, holds, depth + 1)
            if xs is None or ys is None:
                return None
            out = xs + ys if (op == "||") == holds else [x + y for x in xs for y in ys]
            return out if len(out) <= 16 else None
        if op not in _COMPARE and op != "!=":
            return None
        if not holds:
            op = _NEGATE.get(op, "==")
        if op != "!=" and (a.type.get_canonical().kind in _UNSIGNED or b.type.get_canonical().kind in _UNSIGNED):
            return None   # (unsigned values that differ differ as integers too; other comparisons may wrap)
        try:
            la, lb = self.plain_lin(a, anc + [c], ctx), self.plain_lin(b, anc + [c], ctx)
        except _Unknown:
            return None
        if op == "!=":
            return [_compare("<", la, lb), _compare(">", la, lb)]
        return [_compare(op, la, lb)]

    # -- an access ---------------------------------------------------------------------------------
    @staticmethod
    def subscripts(sub: cindex.Cursor, array: cindex.Cursor) -> list[cindex.Cursor]:
        """The subscripts of `array[i0][i1]...` (cursor sub), outermost first."""
        idx = []
        c = sub
        while True:
            c = _strip(c)
            if c.kind != CK.ARRAY_SUBSCRIPT_EXPR:
                break
            k = _kids(c)
            if len(k) != 2:
                raise _Unknown
            idx.append(k[1])
            c = k[0]
        if c.kind != CK.DECL_REF_EXPR or c.referenced is None or c.referenced.hash != array.hash or not idx:
            raise _Unknown
        return idx[::-1]

    def holds_at(self, where: list[cindex.Cursor], ctx: _Ctx, pcons: list[Lin]) -> None:
        """Add to ctx.cons what the `if`s around the expression whose ancestors are `where` say (an
        unsigned comparison only where neither side can be negative)."""
        self.guards(where, ctx)
        known = ctx.cons + pcons + _thread_ranges()
        for a, b, row, bits in ctx.pending:   # (each side in [0, 2^bits): the comparison is the integers')
            if all(not feasible([], known + [x.scale(-1).shift(-1)]) and not feasible([], known + [x.shift(-(1 << bits))])
                   for x in (a, b)):
                ctx.cons.append(row)

    def form(self, sub: cindex.Cursor, array: cindex.Cursor, ctx_subst: dict[int, Lin],
             pcons: list[Lin]) -> _Form:
        """The flattened offset of `array[i0][i1]...` (cursor sub) and what holds where it runs."""
        t = array.type.get_canonical()
        dims = []
        if t.kind == TK.INCOMPLETEARRAY:   # (an `extern __shared__` array: its outer extent is the launch's)
            dims.append(0)
            t = t.element_type
        while t.kind == TK.CONSTANTARRAY:
            dims.append(t.get_array_size())
            t = t.element_type
        idx = self.subscripts(sub, array)
        if len(idx) != len(dims):
            raise _Unknown
        ctx = _Ctx(dict(ctx_subst), list(pcons))
        where = self.anc.get(sub.hash)
        if where is None:
            raise _Unknown
        flat, stride = Lin(), 1
        for i in range(len(dims) - 1, -1, -1):
            flat = flat + self.lin(idx[i], where + [sub], ctx).scale(stride)
            stride *= dims[i]
        if ctx.widened:
            raise _Unknown   # (a widened unsigned value: left to the check)
        self.holds_at(where + [sub], ctx, pcons)
        return _Form(flat, ctx.cons, dict(ctx.mults))


def multiple_cases(eq: Lin, mults: dict) -> list[list[Lin]]:
    """The cases the equation's multiples fall in, each rows >= 0: where its variables that are multiples of
    one value m (all with one coefficient's size) add up to D (so D is a multiple of m too), D == 0, D >= m or
    D <= -m. One case, no rows, where there are none (or past 3 such values)."""
    groups: dict = {}
    for v, c in eq.coef.items():
        if v in mults:
            groups.setdefault(mults[v].key(), (mults[v], []))[1].append((v, c))
    cases: list[list[Lin]] = [[]]
    for m, vs in list(groups.values())[:3]:
        size = abs(vs[0][1])
        if any(abs(c) != size for _, c in vs):
            continue
        d = Lin({v: c // size for v, c in vs})
        cases = [x + o for x in cases for o in ([d, d.scale(-1)], [d - m], [d.scale(-1) - m])]
    return cases


def apart(fa: _Form, fb: _Form, pcons: list[Lin]) -> frozenset[str] | None:
    """Do two distinct threads, one at each form, never name the same word? None where that is not
    shown, else the launch conditions it needs (`blockDim.x <= 32`, `blockDim.y <= 8`: the widest
    extent in x, then in y, for which the threads cannot differ there, where they can in wider
    blocks; `blockDim.y == 1` where no width of at least _MIN_WIDTH separates them; `blockDim.z == 1`)."""
    one = lambda v: v + "#1" if v.startswith("T:") else v   # noqa: E731
    two = lambda v: v + "#2" if v.startswith("T:") else v   # noqa: E731
    eq = fa.index.rename(one) - fb.index.rename(two)
    rows = [r.rename(one) for r in fa.cons + _thread_ranges()] + [r.rename(two) for r in fb.cons] + pcons
    for d in DIMS:   # the second thread's coordinates (the extents are shared)
        rows += [Lin.var(f"T:t{d}#2"), Lin.var(f"U:bd{d}") - Lin.var(f"T:t{d}#2") - Lin(const=1)]
    mults = {one(v): m for v, m in fa.mults.items()} | {two(v): m for v, m in fb.mults.items()}
    alts = multiple_cases(eq, mults)

    def meet(extra: list[Lin], same: list[Lin] = ()) -> bool:
        return any(feasible([eq, *same], rows + extra + alt) for alt in alts)

    if not meet([]):
        return frozenset()

    def differ(d: str, extra: list[Lin]) -> bool:
        """May the two threads differ in coordinate d? (Where the elimination says maybe, again with the other
        of x and y equal, above or below: its rational steps lose `81 (x1 - x2) = ...` has no solution with
        x1 != x2 where the rest reaches below 81.)"""
        t1, t2 = Lin.var(f"T:t{d}#1"), Lin.var(f"T:t{d}#2")
        for row in (t1 - t2 - Lin(const=1), t2 - t1 - Lin(const=1)):
            if meet(extra + [row]):
                if d == "z":
                    return True
                o = "y" if d == "x" else "x"
                gap = Lin.var(f"T:t{o}#1") - Lin.var(f"T:t{o}#2")
                if meet(extra + [row], [gap]) or meet(extra + [row, gap.shift(-1)]) or \
                        meet(extra + [row, gap.scale(-1).shift(-1)]):
                    return True
        return False

    def shaped(order: str) -> frozenset[str] | None:
        """The conditions, capping the extents in `order` (the first must take a cap of at least _MIN_WIDTH)."""
        need, extra = set(), []
        for d in order:
            if not differ(d, extra):
                continue
            lo, hi = 0, 1025   # the widest extent in d whose threads cannot differ in d: in [lo, hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if differ(d, extra + [Lin(const=mid) - Lin.var(f"U:bd{d}")]):
                    hi = mid
                else:
                    lo = mid
            if lo >= _MIN_WIDTH:
                need.add(f"blockDim.{d} <= {lo}")
                extra.append(Lin(const=lo) - Lin.var(f"U:bd{d}"))
            elif d == order[0]:
                return None
            else:
                need.add(f"blockDim.{d} == 1")
                extra.append(Lin(const=1) - Lin.var(f"U:bd{d}"))
        if differ("z", extra):
            need.add("blockDim.z == 1")
        return frozenset(need)

    # x first; else y first (`s[threadIdx.x][threadIdx.y + 8 * i]` of a [16][81] tile: its columns apart where
    # the block is at most 8 high, whatever its width)
    got = shaped("xy")
    return got if got is not None else shaped("yx")


@dataclass
class _Acc:
    span: object
    kind: str                      # read | write | rmw
    array: str
    sub: cindex.Cursor | None      # the subscript expression (None: not understood)


def apart_accesses(facts, kernel, cur: cindex.Cursor, params: set[str], changed: set[str],
                   node_of, heads: dict[int, tuple], unknown, subs: dict) -> dict:
    """Span -> the launch conditions (C++, each `blockDim.<d> ...`) under which they hold, for the
    accesses of the kernel's declared shared arrays that no other thread's access meets in their
    interval (see the module).
    `node_of`, `heads` (loop head node -> (loop cursor, first and past-last node of its body)) and
    the nodes come from intervals.KernelFacts.kernel; `unknown` is its Word of a read or write whose
    target is not known, `subs` its subscript expressions by (start, end)."""
    p = facts.p
    an = ApartAnalysis(facts, kernel, cur, params, changed)
    nodes = facts.nodes
    declared = {}
    # the kernel's extern arrays all name the launch's one dynamic area: taken where it declares one alone
    # and reaches it through no pointer of its own (intervals.KernelFacts.pointers_in)
    extern_alone = len(facts.extern_in) == 1 and DYNAMIC not in facts.pointers_in.values()
    for c in cur.walk_preorder():
        if c.kind == CK.VAR_DECL and c.type.get_canonical().kind == TK.CONSTANTARRAY:
            d = next((s for s in p.shared if s.name == c.spelling and not s.is_extern), None)
            if d is not None:
                declared[c.spelling] = c
        elif c.kind == CK.VAR_DECL and c.type.get_canonical().kind == TK.INCOMPLETEARRAY and extern_alone and \
                c.spelling in facts.extern_in:
            declared[c.spelling] = c
    if not declared:
        return {}
    # the barrier loops: each an analysable `for` (one that steps by shifts: from a value alike in every thread)
    an.barrier_loops = {loop.hash for loop, _, _ in heads.values()}
    def uniform_loop(loop) -> bool:   # (a start, and a condition the analysis does not read, alike in every thread)
        lv = an.loop_var(loop, True)
        where = an.anc.get(loop.hash, []) + [loop]
        return lv is not None and (not lv.by or an.alike(lv.init, where)) and (
            lv.cond is not None or an.alike(list(loop.get_children())[1], where))
    if not all(uniform_loop(loop) for loop, _, _ in heads.values()):
        return {}
    by_node: dict[int, list[_Acc]] = {}
    bad: set[str] = set()
    for a in p.accesses:
        if a.span.file != kernel.body.file or not (kernel.body.start <= a.span.start and a.span.end <= kernel.body.end):
            continue
        arr = a.base if a.space == "shared" and a.base in declared else None
        if arr is None:
            arr = facts.pointers_in.get(a.base) if a.space != "shared" else None
            if arr in declared:
                bad.add(arr)   # through a pointer
            continue
        n = node_of(a.span)
        if nodes[n].cut or n in heads:
            bad.add(arr)
            continue
        sub = subs.get((a.span.start, a.span.end)) if a.bound in ("array", "dynamic") else None
        by_node.setdefault(n, []).append(_Acc(a.span, a.kind, arr, sub))
    for n, arg in facts.arg_accesses:   # (a context function's reference arguments: accesses at its call)
        if arg.array not in declared:
            continue
        if nodes[n].cut or n in heads or arg.sub is None:
            bad.add(arg.array)
        else:
            by_node.setdefault(n, []).append(_Acc(arg.span, arg.kind, arg.array, arg.sub))
    for at in p.atomics:
        if kernel.body.start <= at.span.start and at.span.end <= kernel.body.end:
            base = facts.atomic_base(at)
            arr = base if base in declared else facts.pointers_in.get(base)
            if arr in declared:
                bad.add(arr)   # (atomics are left to the check)
    bad |= facts.atomic_arrays & set(declared)   # (and those of its calls' atomic functions: shared_calls.py)
    # paths: every interval's one way through, from each barrier (and the entry)
    paths: list[tuple[list[tuple[int, dict]], list[Lin]]] = []

    def enclosing(n: int) -> list[tuple[int, tuple]]:
        return sorted(((h, v) for h, v in heads.items() if v[1] <= n < v[2]), key=lambda x: x[0])

    def silent_ahead(n: int) -> bool:
        """Does nothing reachable from node n before a barrier access a declared array, or memory not known?
        (Where a path comes round to n again, only a loop that ran no round brought it: bitonic sort's inner
        loop, in the outer loop's next round, is entered again at a barrier. Going on adds no access.)"""
        seen, todo = set(), [n]
        while todo:
            j = todo.pop()
            if j in seen or nodes[j].cut:
                continue
            seen.add(j)
            if by_node.get(j) or unknown in nodes[j].writes or unknown in nodes[j].reads:
                return False
            todo.extend(nodes[j].succ)
        return True

    def walk(n: int, prev: int, subst: dict, pcons: list, trail: list) -> None:
        if len(paths) > _MAX_PATHS:
            raise _Unknown
        if nodes[n].cut:
            paths.append((trail, pcons))
            return
        if any(n == m for m, _ in trail):
            if silent_ahead(n):   # (round again with nothing to meet before the next barrier: the path ends)
                paths.append((trail, pcons))
                return
            raise _Unknown
        if n in heads:
            loop, lo, hi = heads[n]
            lv = an.loop_var(loop, True)
            ctx = _Ctx(subst, pcons)
            where = an.anc.get(loop.hash, []) + [loop]
            if lv.by:   # (a power of two each round: a fresh one, pow2_at knowing what it is)
                value = Lin.var(f"U:{lv.name}@{loop.hash}#r{len(trail)}")
            elif lo <= prev < hi:
                if lv.var not in subst:
                    raise _Unknown
                value = subst[lv.var].shift(lv.step)
            else:
                value = an.lin(lv.init, where, ctx)
            if any(v.startswith("T:") for v in value.coef):
                raise _Unknown   # not alike in every thread
            inside = dict(subst)
            inside[lv.var] = value
            rows = []
            if lv.cond is not None:
                op, bound, unsigned = lv.cond
                b = an.lin(bound, where, _Ctx(subst, pcons))
                if any(v.startswith("T:") for v in b.coef):
                    raise _Unknown
                if not unsigned:
                    rows = _compare(op, value, b)
            outside = {k: v for k, v in subst.items() if k != lv.var}
            for s in sorted(nodes[n].succ):
                if lo <= s < hi:
                    walk(s, n, inside, pcons + rows, trail + [(n, inside)])
                else:
                    walk(s, n, outside, pcons, trail + [(n, outside)])
            return
        trail = trail + [(n, subst)]
        succ = sorted(nodes[n].succ)
        if not succ:
            paths.append((trail, pcons))
        for s in succ:
            walk(s, n, subst, pcons, trail)

    try:
        for b, node in enumerate(nodes):
            if not node.cut:
                continue
            subst, pcons = {}, []
            for h, (loop, lo, hi) in enclosing(b):   # a fresh value of each loop's variable
                lv = an.loop_var(loop, True)
                ctx = _Ctx(dict(subst), list(pcons))
                sym = an._round_value(lv, loop, an.anc.get(loop.hash, []) + [loop], ctx, "U:")
                pcons = pcons + [r for r in ctx.cons if not any(v.startswith("T:") for v in r.coef)]
                subst[lv.var] = sym
            for s in sorted(node.succ):
                walk(s, b, subst, pcons, [])
    except (_Unknown, ValueError, AttributeError, KeyError, IndexError) as e:
        facts.note(kernel.name, f"no index proof: its barrier loops are not ones the proof follows "
                                f"({type(e).__name__}{': ' + str(e) if str(e) else ''})")
        return {}
    # each access on each path: apart from every access of its array there, a write among them
    verdict: dict = {}
    for trail, pcons in paths:
        accs = [(acc, subst) for n, subst in trail for acc in by_node.get(n, [])]
        any_w = any(unknown in nodes[n].writes for n, _ in trail)
        any_r = any(unknown in nodes[n].reads for n, _ in trail)
        forms = []
        an.rank_used = False
        for acc, subst in accs:
            f = None
            if acc.sub is not None and acc.array not in bad:
                try:
                    f = an.form(acc.sub, declared[acc.array], subst, pcons)
                except (_Unknown, ValueError, AttributeError, KeyError, IndexError):
                    f = None
            forms.append(f)
        # (a thread block's rank taken for threadIdx.x on this path: it is that only in blocks one thread high and
        # deep, which each proof here then needs, whatever the x coordinates alone show)
        ranked = {"blockDim.y == 1", "blockDim.z == 1"} if an.rank_used else set()
        for i, (acc, _) in enumerate(accs):
            ok, flat = forms[i] is not None and not any_w and not (any_r and acc.kind != "read"), set()
            for j, (other, _) in enumerate(accs):
                if not ok:
                    break
                if other.array != acc.array or (acc.kind == "read" and other.kind == "read"):
                    continue
                if forms[j] is None:
                    ok = False
                    break
                need = apart(forms[i], forms[j], pcons)
                ok = need is not None
                flat |= need or set()
            key = acc.span
            prior = verdict.get(key, (True, frozenset()))
            verdict[key] = (prior[0] and ok, prior[1] | frozenset(flat) | frozenset(ranked))
    pow2 = frozenset(f"(({n}) & (({n}) - 1)) == 0" for n in an.pow2_params)   # (taken anywhere in the kernel: all)
    return {k: v[1] | pow2 for k, v in verdict.items() if v[0]}
