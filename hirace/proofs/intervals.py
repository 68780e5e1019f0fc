"""Barrier intervals of kernels: the accesses to `__shared__` arrays that cannot race.

A data race needs a write: two reads never race, and shared memory belongs to one block, whose
barriers order everything before them against everything after. So a read of a shared array that
no thread of the block can write in the read's barrier interval races with nothing (a tile of a
matrix product read after the barrier that ends its loading, a stencil's neighbours), and so does
a write of each thread's own word (`A[threadIdx.y][threadIdx.x] = v`) in an interval where no thread
reads the array and every write to it has that form. `shared_intervals` finds both from the
kernel's statements, conservatively:

- the interval of an access is every statement a thread can execute between the same two barriers:
  the code reachable without passing a barrier from any barrier (or the kernel's entry) that
  reaches the access without passing one. Only `__syncthreads` (and its variants, and a
  cooperative-groups block sync) ends an interval; a kernel where one of them is conditional
  (inside `if`, `switch`, `?:`, `&&`, `||`) or in a loop's header is not analysed, nor one with
  `goto`, inline assembly, a lambda or a local class, or a call to a device function that
  synchronises; but for an `if` whose condition every thread of the block computes alike
  (`if (log2N & 1) { __syncthreads(); ... }`: unchanged parameters, literals, blockDim, gridDim and
  locals of them, `_uniform_ifs`), where either arm is a path the block takes as one;
- a write is a store, read-modify-write or atomic to the array by name, and any one whose target
  is not known (through a pointer that is not a kernel parameter), a call of a device function
  that writes memory other than through its kernel's parameters (or local pointers moved from them by
  numbers, `float *dst = out + base;`: param_pointers), and a call of a function the
  program does not define that takes a non-const pointer or reference, or a non-const method: any
  of them counts as a write to every shared array; likewise for reads. `extern __shared__` arrays
  all count as one.

An atomic on a shared array in an interval where every access to that array is an atomic races with
nothing either (atomics never race with each other): it is quiet too.

`KernelFacts` (what calls and functions may do, what a kernel changes) is shared with
readonly_params.py.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from clang import cindex

from instrument.frontend.parse import Span
from instrument.frontend.query import (BARRIERS, DESTROYED, Function, Program, atomic_parts, dependent_callee, destroyed_by,
                                       local_variable)
from .apart import DYNAMIC, _INTS, apart_accesses
from .call_context import ContextCall, call_arguments, context_functions
from .shared_calls import AtomicCall, _one_definition, _root, atomic_call
from .bounds import inside_accesses
from .own_index import Scope, _NotLinear, _bare, _norm, _number, address_taken
from .tree_forms import OffsetForm, guards_of, offset_form, tree_form, tree_vars
from .conditions import BlockBounds, Condition, LanesApart, OwnWord
from .proof import Rule

CK = cindex.CursorKind
TK = cindex.TypeKind

ANY = "*"           # a write whose target is unknown: every shared array
_LOOPS = (CK.FOR_STMT, CK.WHILE_STMT, CK.DO_STMT, CK.CXX_FOR_RANGE_STMT)
# functions without a definition in the program that write nothing a kernel can see (their pointer
# arguments are only read); dependent calls in templates are taken on trust only for these names
_PURE = re.compile(r"(__)?(ldg|ldcg|ldca|ldcs|ldlu|ldcv)$|printf$|assert$|__assert_fail$|"
                   r"(std::)?(min|max|abs|fabsf?|sqrtf?|rsqrtf?|expf?|exp2f?|logf?|log2f?|powf?|sinf?|cosf?|"
                   r"tanhf?|floorf?|ceilf?|fminf?|fmaxf?|fmaf?|roundf?|truncf?)$|"
                   r"__(shfl|ballot|any|all|activemask|popc|clz|ffs|brev|fmul|fadd|fdiv|fma|f?sqrt|exp|log|"
                   r"sin|cos|saturate|float2|int2|uint2|double2|half2|mul24|umul|sad|byte_perm|funnelshift|"
                   r"rcp|frcp|fsqrt|drcp|match|reduce)\w*$")


# a cooperative group's methods that only exchange values or answer questions (`tile.shfl_down(v, 1)`),
# called on a group a template leaves unresolved
_GROUP_PURE = re.compile(r"shfl(_down|_up|_xor)?|thread_rank|size|num_threads|meta_group_rank|meta_group_size|"
                         r"any|all|ballot|match_any|match_all|thread_index|group_index|dim_threads")


# an object constructed with no arguments, as written: `SharedMemory<T>()`
_CONSTRUCTION = re.compile(r"\s*(\w+)\s*(?:<[^;{}()]*>)?\s*\(\s*\)\s*")


@dataclass(frozen=True)
class Move:
    """A pointer parameter moved by a number written as an assignment (`p = p + n`): as `p += n` (op), with
    the number's cursor (`amount`) for the own-index forms (readonly_params._moved_by)."""
    op: str
    span: Span
    amount: cindex.Cursor


def _constant_variable(c: cindex.Cursor) -> bool:
    return c.kind == CK.DECL_REF_EXPR and c.referenced is not None and c.referenced.kind == CK.VAR_DECL and \
        any(k.kind == CK.CUDACONSTANT_ATTR for k in c.referenced.get_children())


def _constant_lvalue(c: cindex.Cursor) -> bool:
    """Is c (an lvalue) part of a `__constant__` variable's own storage: the variable, an element of one of its
    arrays, a member (through `.`)?"""
    c = _bare(c)
    kids = [k for k in c.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF)]
    if c.kind == CK.ARRAY_SUBSCRIPT_EXPR and len(kids) == 2:
        base = _bare(kids[0])
        # (the subscripted operand must be an array, not a pointer loaded from the variable)
        return base.type.get_canonical().kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY) and _constant_lvalue(base)
    if c.kind == CK.MEMBER_REF_EXPR and len(kids) == 1 and c.type.get_canonical().kind != TK.POINTER and \
            c.referenced is not None and c.referenced.kind == CK.FIELD_DECL:   # (a static member lies elsewhere)
        return kids[0].type.get_canonical().kind != TK.POINTER and _constant_lvalue(kids[0])
    return _constant_variable(c)


def _constant_address(c: cindex.Cursor, depth: int = 0) -> bool:
    """Is c an address into a `__constant__` variable's own storage (`&c_Table[y][0]`, `c_Table[y]`, `c_w + 4`,
    cast), never a pointer loaded from it (`c_ptrs[0]`)?"""
    if depth > 16:
        return False
    while c.kind in (CK.UNEXPOSED_EXPR, CK.PAREN_EXPR, CK.CSTYLE_CAST_EXPR, CK.CXX_STATIC_CAST_EXPR,
                     CK.CXX_REINTERPRET_CAST_EXPR, CK.CXX_CONST_CAST_EXPR):
        kids = [k for k in c.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF)]
        if len(kids) != 1:
            return False
        if c.kind == CK.UNEXPOSED_EXPR and kids[0].type.get_canonical().kind in (TK.CONSTANTARRAY,
                                                                               TK.INCOMPLETEARRAY):
            return _constant_lvalue(kids[0])   # (an array that decays to its first element's address)
        c = kids[0]
    kids = [k for k in c.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF)]
    if c.kind == CK.UNARY_OPERATOR and len(kids) == 1 and c.type.get_canonical().kind == TK.POINTER and \
            kids[0].type.get_canonical().kind != TK.POINTER:
        return _constant_lvalue(kids[0])   # `&x` (the only unary operator whose operand is no pointer and gives one)
    if c.kind == CK.BINARY_OPERATOR and len(kids) == 2 and c.type.get_canonical().kind == TK.POINTER:
        ptr = [k for k in kids if k.type.get_canonical().kind == TK.POINTER]
        other = [k for k in kids if k.type.get_canonical().kind in _INTS]
        return len(ptr) == 1 and len(other) == 1 and _number(other[0]) and _constant_address(ptr[0], depth + 1)
    return False


def _in_namespace(c: cindex.Cursor, name: str) -> bool:
    """Is c declared (at any depth) inside namespace `name`?"""
    p, seen = c.semantic_parent, 0
    while p is not None and seen < 16:
        if p.kind == CK.NAMESPACE and p.spelling == name:
            return True
        p, seen = p.semantic_parent, seen + 1
    return False


def _plain_data(t: cindex.Type, depth: int = 0) -> bool:
    """A type whose objects hold no pointer or reference (ints, floats, arrays and structs of them): a copy
    of one reads its bytes alone, wherever a copy constructor might follow a pointer it holds."""
    t = t.get_canonical()
    while t.kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
        t = t.element_type.get_canonical()
    if t.kind in (TK.POINTER, TK.LVALUEREFERENCE, TK.RVALUEREFERENCE, TK.MEMBERPOINTER):
        return False
    if t.kind != TK.RECORD:
        return t.kind != TK.INVALID and depth <= 8
    decl = t.get_declaration()
    parts = [k for k in decl.get_children() if k.kind in (CK.FIELD_DECL, CK.CXX_BASE_SPECIFIER)]
    template = cindex.conf.lib.clang_getSpecializedCursorTemplate(decl)
    if not parts and template is not None and not template.kind.is_invalid():
        return False   # (an implicit instantiation shows no members: not known)
    return depth <= 8 and all(_plain_data(k.type, depth + 1) for k in parts)


def _pointer_params(fn: cindex.Cursor, writable: bool = True) -> bool:
    """Does the function take a pointer or reference (to something it may change, with `writable`)?"""
    if fn.type.kind != TK.FUNCTIONPROTO:   # no prototype: it may take anything
        return True
    types = list(fn.type.argument_types())
    for t in types:
        t = t.get_canonical()
        if t.kind in (TK.POINTER, TK.LVALUEREFERENCE, TK.RVALUEREFERENCE) and \
                not (writable and t.get_pointee().is_const_qualified()):
            return True
    return False


# -- what the analysis proves of an access that names its thread's own words (the rules' input) --
@dataclass(frozen=True)
class OwnForm:
    """A write (or read) of each thread's own word, `A[threadIdx.y][threadIdx.x]` (form 'yx'), in an
    interval where no other thread reads or writes that word: its own where the block fits A."""
    form: str
    rule = Rule.OWN_SHARED_WORD
    entry_suffix = "_private"

    def condition(self, array: str) -> Condition:
        return OwnWord(array, self.form)


@dataclass(frozen=True)
class LaneRanges:
    """A write `A[lane + offset]` among lane + offset writes (tree_forms.OffsetForm), no read of A in
    the interval: each thread's words are its own where the writes' ranges lie apart."""
    lane: str
    forms: tuple[OffsetForm, ...]
    rule = Rule.LANES_APART
    entry_suffix = "_private"

    def condition(self, array: str) -> Condition:
        return LanesApart(array, self.lane, tuple((f.offset, f.cap) for f in self.forms))


@dataclass(frozen=True)
class Apart:
    """An access no other thread's access meets in its interval in launches where each of
    `needs` holds (C++ conditions on blockDim: apart.py)."""
    needs: frozenset
    rule = Rule.APART
    entry_suffix = "_apart"

    def condition(self, array: str = "") -> Condition:
        return BlockBounds(self.needs)


OwnWordForm = OwnForm | LaneRanges | Apart   # a lone access's form: each names its rule and condition


class Reach(enum.Enum):
    """Which words of its array an access may name, as far as the interval analysis knows."""
    ANY_WORD = enum.auto()   # any word (its index is not one the analysis reads)
    OWN = enum.auto()        # the thread's own word (`A[tid]`, `A[threadIdx.y][threadIdx.x]`)
    BELOW = enum.auto()      # its own word, below a tree reduction's stride (`if (tid < s) A[tid] = ...`)
    ABOVE = enum.auto()      # the word a stride above its own (`A[tid + s]`)
    OFFSET = enum.auto()     # lane + offset (tree_forms.OffsetForm, by its index in the kernel's list)
    ATOMIC = enum.auto()     # any word, by an atomic (atomics never race with each other)


@dataclass(frozen=True)
class Word:
    """What an access (or a call) of an interval touches: an array (ANY: every shared array, DYNAMIC:
    the extern ones) and, where known, which of its words (`lane`: the form 'yx', 'x' ...; `var`:
    the stride; `index`: the offset form's)."""
    array: str
    reach: Reach = Reach.ANY_WORD
    lane: str = ""
    var: str = ""
    index: int = -1

    def __str__(self) -> str:   # (for messages and a stable order)
        r = self.reach
        if r is Reach.ANY_WORD:
            return self.array
        if r is Reach.ATOMIC:
            return f"{self.array}@atomic"
        tail = {Reach.OWN: "", Reach.BELOW: f"<{self.var}", Reach.ABOVE: f"+{self.var}",
                Reach.OFFSET: f"~{self.index}"}[r]
        return f"{self.array}@{self.lane}{tail}"


EVERY = Word(ANY)   # a write or read whose target is unknown


class NotAnalysed(Exception):
    """A kernel this analysis does not take on (the message says why): none of its accesses gets a
    proof from it, and the explanation names the reason."""


@dataclass
class _Node:
    extents: list[tuple[int, int]]
    cut: bool = False              # holds a barrier that ends an interval
    succ: set[int] = field(default_factory=set)
    pred: set[int] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)   # arrays written ("A@yx": by each thread at [y][x]), ANY
    reads: set[str] = field(default_factory=set)


def _inside(span: Span, outer: Span) -> bool:
    return span.file == outer.file and outer.start <= span.start and span.end <= outer.end


def assignments(prog: Program, body: Span) -> dict[str, list]:
    """The operators in `body` that change a name (`=`, `+=`, `++` ...), by the name as written, without
    blanks or the parentheses around it (`(i) = 100` changes i)."""
    src = prog.unit.source(body.file)
    out: dict[str, list] = {}
    for o in prog.operators:
        if _inside(o.span, body) and o.assigns():
            out.setdefault(_bare_name(src.text(o.operands[0].start, o.operands[0].end)), []).append(o)
    return out


def _bare_name(text: str) -> str:
    """An operand's text without blanks and without the parentheses that enclose all of it."""
    t = re.sub(r"\s+", "", text)
    while t.startswith("(") and t.endswith(")"):
        depth = 0
        for i, ch in enumerate(t):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(t) - 1:
                return t   # (two groups: `(a)+(b)`)
        t = t[1:-1]
    return t


class KernelFacts:
    """What the program's calls and functions may do, and what its kernels' barrier intervals hold."""

    def __init__(self, prog: Program):
        self.p = prog
        self.cursors = prog.cursors
        self.extern_in: set[str] = set()   # the kernel being analysed: its extern __shared__ arrays' names
        self.constant_in: set[str] = set()   # ... and its local pointers into __constant__ memory
        self.summaries: dict[tuple, tuple[bool, bool, bool] | None] = {}   # body -> (syncs, writes, reads)
        self._rebased: dict[tuple, dict] = {}   # kernel body -> rebased()
        self.pointers_in: dict[str, str] = {}   # the kernel being analysed: its shared_pointers
        self._classes: dict[str, bool] | None = None
        self._pointers: dict[tuple, dict[str, str]] = {}   # shared_pointers by kernel body
        self.effects: dict[tuple, tuple[bool, bool, bool]] = {}          # by call (hash, where, name)
        self.notes: dict[str, list[str]] = {}   # kernel -> what an analysis gave up on in it (for explain)
        self._context: dict | None = None   # call_context.context_functions, once asked
        self.arg_accesses: list = []   # the kernel being analysed: (node, call_context.ArgAccess) of its context calls
        self.atomic_arrays: set[str] = set()   # ... and the arrays its calls of atomic functions reach (shared_calls.py)
        # every kernel's calls of context functions whose reference arguments were proved, by (file, start, end)
        self.context_calls: dict[tuple[str, int, int], ContextCall] = {}
        # every kernel's calls of atomic functions whose arrays only atomics touch in their interval (shared_calls.py)
        self.atomic_calls: dict[tuple[str, int, int], AtomicCall] = {}

    def context_functions(self) -> dict:
        """The unit's device functions whose accesses a call can make quiet (call_context.py)."""
        if self._context is None:
            self._context = context_functions(self.p, self)
        return self._context

    def _context_call(self, c: cindex.Cursor, body: Span):
        """(the function, its reference arguments as accesses) for a call of a context function in the kernel
        whose body is `body`, or None."""
        cf = self.context_functions().get(c.spelling)
        if cf is None or _one_definition(self.p, c) != cf.fn:
            return None
        shared_decl = {d.name for d in self.p.shared}

        def local(v: cindex.Cursor) -> bool:
            sp = self.p.unit.span_of(v)
            return v.kind == CK.VAR_DECL and sp is not None and _inside(sp, body) and v.spelling not in shared_decl \
                and v.storage_class not in (cindex.StorageClass.STATIC, cindex.StorageClass.EXTERN) \
                and v.type.kind not in (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE)
        args = call_arguments(self.p, c, cf, {n for n in shared_decl if self.array_named(n, body) is not None},
                              local)
        return (cf, args) if args is not None else None

    def note(self, kernel: str, text: str) -> None:
        self.notes.setdefault(kernel, []).append(text)

    # -- what a piece of code writes --------------------------------------------------------------
    def _callee_effects(self, call: cindex.Cursor) -> tuple[bool, bool, bool]:
        """(synchronises, writes something, may read shared memory) for a call in device code."""
        loc = call.location
        key = (call.hash, loc.file.name if loc.file else "", loc.offset, call.spelling)
        if key not in self.effects:
            self.effects[key] = self._effects(call)
        return self.effects[key]

    def _effects(self, call: cindex.Cursor) -> tuple[bool, bool, bool]:
        name, obj = call.spelling, None
        if not name and call.referenced is None:   # a call a template leaves unresolved: its name as written
            kids = list(call.get_children())
            name, obj = dependent_callee(kids[0]) if kids else ("", None)
            if obj is not None and _GROUP_PURE.fullmatch(name):
                return False, False, False     # a cooperative group's shuffle, vote or rank
        if name in BARRIERS or name == "sync" or atomic_parts(name):
            return False, False, False     # barriers and atomics are seen on their own
        if name in ("memcpy", "memmove", "memset") and self._local_range(call):
            return False, False, False     # between the thread's own locals (query.py RangeCall.local)
        ref = call.referenced
        if ref is not None and ref.kind in (CK.CONSTRUCTOR, CK.DESTRUCTOR):
            # (one the program defines is summarised as any function: `W w(out)` may write through out)
            mine = self._defined(ref.spelling)
            if mine is None and (ref.is_copy_constructor() or ref.is_move_constructor()) and ref.is_default_method() and all(
                    local_variable(a) and _plain_data(a.type) for a in call.get_arguments()):
                return False, False, False   # a copy of the thread's own local (`return p;`): its bytes alone
            return mine if mine is not None else (False, False, _pointer_params(ref, writable=False))
        if ref is not None and ref.kind == CK.CXX_METHOD and name == "operator=" and ref.is_default_method() and (
                ref.is_copy_assignment_operator_method() or ref.is_move_assignment_operator_method()) and \
                ref.semantic_parent is not None and _plain_data(ref.semantic_parent.type):
            return False, False, False   # (a plain struct's own assignment, `out[i] = make_float2(a, b)`: the access)
        mine = self._defined(name)
        if mine is not None:
            return mine
        if ref is None and not name:   # a dependent construction: `SharedMemory<T>()` touches nothing
            sp = self.p.unit.span_of(call)
            if sp and self.shared_construction(self.p.unit.source(sp.file).text(sp.start, sp.end)):
                return False, False, False
        if ref is None:
            return False, not _PURE.match(name or ""), not _PURE.match(name or "")
        if ref.kind == CK.CXX_METHOD:
            if _GROUP_PURE.fullmatch(name) and _in_namespace(ref, "cooperative_groups"):
                return False, False, False     # a cooperative group's rank, size, shuffle or vote
            return False, not ref.is_const_method() and not ref.is_static_method(), True
        pure = bool(_PURE.match(name))
        return False, _pointer_params(ref) and not pure, _pointer_params(ref, writable=False) and not pure

    def _local_range(self, call: cindex.Cursor) -> bool:
        """Is the call a device memcpy/memmove/memset whose addresses all name the thread's own locals?"""
        sp = self.p.unit.span_of(call)
        return sp is not None and any(r.local and r.span == sp for r in self.p.ranges)

    def destroyed_effects(self, c: cindex.Cursor) -> tuple[bool, bool, bool]:
        """(synchronises, writes something, may read shared memory) for the destructors that run, where the
        syntax tree shows no call, when the object c declares or makes is destroyed (query.py `destroyed_by`;
        one the program does not define is taken as its constructors are: writing nothing)."""
        out = (False, False, False)
        for name in destroyed_by(c):
            got = self._defined(name) or (False, False, False)
            out = (out[0] or got[0], out[1] or got[1], out[2] or got[2])
        return out

    def _defined(self, name: str) -> tuple[bool, bool, bool] | None:
        """What a call of the program's device functions named `name` may do: every one of that name
        (two namespaces' or overloads: the call may be of any), or None where the program defines none."""
        fns = [f for f in self.p.definitions if f.name == name] if name else []
        if not fns:
            return None
        got = [self._summary(f) for f in fns]
        return any(g[0] for g in got), any(g[1] for g in got), any(g[2] for g in got)

    def _summary(self, fn: Function) -> tuple[bool, bool, bool]:
        key = (fn.body.file, fn.body.start)
        if key in self.summaries:
            got = self.summaries[key]
            return got if got is not None else (True, True, True)   # recursion: assume the worst
        self.summaries[key] = None
        syncs = any(_inside(b.span, fn.body) for b in self.p.barriers if b.scope != "warp")
        writes = any(a.kind != "read" and a.space in ("shared", "pointer", "global") and _inside(a.span, fn.body)
                     for a in self.p.accesses) or any(_inside(a.span, fn.body) for a in self.p.atomics)
        reads = any(a.kind != "write" and a.space in ("shared", "pointer") and _inside(a.span, fn.body)
                    for a in self.p.accesses)
        cur = self.cursors.get((fn.body.file, fn.body.start))
        if cur is None:
            syncs = writes = reads = True
        # (a write through a pointer or reference parameter is one of its accesses, above: `*p = v`, `p[i] += v`,
        # `p->x = v` of a template's `T *p`, `r = v` of `int &r`; passed on, its callee's; placement new, below)
        if cur is not None:
            for c in cur.walk_preorder():
                if c.kind == CK.CALL_EXPR and c is not cur:
                    s, w, r = self._callee_effects(c)
                    syncs, writes, reads = syncs or s, writes or w, reads or r
                elif c.kind == CK.ASM_STMT:
                    syncs = writes = reads = True
                elif c.kind == CK.CXX_NEW_EXPR:   # (`new (p) T(v)` writes where p points, through no access)
                    writes = True
                if c.kind in DESTROYED:
                    s, w, r = self.destroyed_effects(c)
                    syncs, writes, reads = syncs or s, writes or w, reads or r
        self.summaries[key] = (syncs, writes, reads)
        return syncs, writes, reads

    def changed(self, body: Span) -> set[str]:
        """What the code in `body` assigns, increments or decrements, as written (`p`, `tx`)."""
        return set(assignments(self.p, body)) | \
            {name for sp, name in self.p.aliased if _inside(sp, body)}   # (a reference may change them)

    def rebased(self, k) -> dict[str, list]:
        """The kernel's pointer parameters whose every change moves them by a number (`p += E`,
        `p -= E`, `++p`, `p--`): each by name, with those operators. Such a pointer still points where
        the host said, into the same buffer, unless an access through it leaves that buffer, which
        its bounds check reports and diverts (an access outside its buffer never happens under
        hirace): it is no unknown pointer."""
        key = (k.body.file, k.body.start)
        if key not in self._rebased:
            self._rebased[key] = self._moved_params(k)
        return self._rebased[key]

    def _moved_params(self, k) -> dict[str, list]:
        ops = assignments(self.p, k.body)
        aliased = {name for sp, name in self.p.aliased if _inside(sp, k.body)}
        cur = self.cursors.get((k.body.file, k.body.start))
        steps = {}   # a compound assignment's span -> whether its number names no pointer (`p += q - p`)
        again = {}   # an assignment's span -> (the pointer it moves, +=/-=, the number) for `p = p + n`, `p = n + p`
        for c in cur.walk_preorder() if cur is not None else ():
            if c.kind == CK.COMPOUND_ASSIGNMENT_OPERATOR:
                sp = self.p.unit.span_of(c)
                kids = list(c.get_children())
                if sp is not None and len(kids) == 2:
                    steps[(sp.start, sp.end)] = _number(kids[1])
            elif c.kind == CK.BINARY_OPERATOR:
                sp = self.p.unit.span_of(c)
                moved = self._moved_again(c) if sp is not None else None
                if moved is not None:
                    again[(sp.start, sp.end)] = moved
        out = {}
        for name in k.params:
            mine = ops.get(name, [])
            moves = []
            for o in mine:
                if o.types[:1] != ("pointer",):
                    break
                if o.op in ("++", "--") or (o.op in ("+=", "-=") and o.types[1:] == ("int",) and
                                            steps.get((o.span.start, o.span.end))):
                    moves.append(o)
                    continue
                got = again.get((o.span.start, o.span.end)) if o.op == "=" else None
                if got is None or got[0] != name:
                    break
                moves.append(Move(got[1], o.span, got[2]))
            if mine and name not in aliased and len(moves) == len(mine):
                out[name] = moves
        return out

    def _moved_again(self, c: cindex.Cursor):
        """(p, '+=' or '-=', the number's cursor) for an assignment `p = p + n`, `p = n + p` or `p = p - n` (n an
        integer that names no pointer), else None."""
        kids = list(c.get_children())
        if len(kids) != 2 or kids[0].type.get_canonical().kind != TK.POINTER:
            return None
        src = self.p.unit.source
        sp, lhs = self.p.unit.span_of(c), self.p.unit.span_of(kids[0])
        if sp is None or lhs is None or not _norm(src(sp.file).text(lhs.end, sp.end)).startswith("=") or \
                _norm(src(sp.file).text(lhs.end, sp.end)).startswith("=="):
            return None
        left = _bare(kids[0])
        if left.kind != CK.DECL_REF_EXPR:
            return None
        rhs = _bare(kids[1])
        parts = list(rhs.get_children())
        rsp = self.p.unit.span_of(rhs)
        if rhs.kind != CK.BINARY_OPERATOR or len(parts) != 2 or rsp is None:
            return None
        a, b = (self.p.unit.span_of(x) for x in parts)
        if a is None or b is None:
            return None
        op = src(rsp.file).text(a.end, b.start).strip()
        name = left.spelling
        named = lambda x: _bare(x).kind == CK.DECL_REF_EXPR and _bare(x).spelling == name   # noqa: E731
        if op in ("+", "-") and named(parts[0]) and parts[1].type.get_canonical().kind in _INTS and \
                _number(parts[1]):
            return name, op + "=", parts[1]
        if op == "+" and named(parts[1]) and parts[0].type.get_canonical().kind in _INTS and _number(parts[0]):
            return name, "+=", parts[0]
        return None

    def array_named(self, name: str, where: Span | None) -> str | None:
        """The shared array `name` names in the code at `where` (a function's body): DYNAMIC for an extern one,
        else its name; None where none is declared there or at file scope. (Two kernels of a unit may each
        declare an array of one name, one of them extern: `__shared__ int sums[32]` and `extern __shared__
        int sums[]`.)"""
        mine = [d for d in self.p.shared if d.name == name and where is not None and _inside(d.span, where)]
        decls = mine or [d for d in self.p.shared if d.name == name and not d.function]
        if not decls:
            return None
        return DYNAMIC if any(d.is_extern for d in decls) else name

    def atomic_base(self, at) -> str:
        """The variable an atomic's address names: `a` in `atomicAdd(&a[i], v)` or `atomicAdd(a, v)`."""
        src = self.p.unit.source(at.span.file)
        if at.bound_base:
            return src.text(at.bound_base.start, at.bound_base.end)
        return src.text(at.address.start, at.address.end).strip() if at.address else ""

    def shared_classes(self) -> dict[str, bool]:
        """Class name -> whether every conversion operator the program defines for it returns an
        extern __shared__ array (`SharedMemory<T>`: constructing one and converting it touches no
        memory and yields a pointer into shared memory)."""
        if self._classes is None:
            self._classes = {}
            for c in self.cursors.values():
                if c.kind == CK.CONVERSION_FUNCTION and c.semantic_parent is not None:
                    rets = [r for r in c.walk_preorder() if r.kind == CK.RETURN_STMT]
                    where = self.p.unit.span_of(c)
                    ok = bool(rets) and all(self.array_named(_named(r), where) == DYNAMIC for r in rets)
                    name = c.semantic_parent.spelling
                    self._classes[name] = self._classes.get(name, True) and ok
        return self._classes

    def shared_pointers(self, k: Function) -> dict[str, str]:
        """The kernel's local pointers into shared memory, by name, with the array they point into
        (DYNAMIC for the extern ones): declared once, never changed nor addressed, from a shared
        array (`float *p = tile;`, maybe cast) or from an object of a class of the program whose every
        conversion operator returns an extern __shared__ array (the samples' `T *sdata =
        SharedMemory<T>();`)."""
        key = (k.body.file, k.body.start)
        if key not in self._pointers:
            self._pointers[key] = self._shared_pointers(k)
        return self._pointers[key]

    def shared_construction(self, text: str) -> bool:
        """Is `text` the construction of an object of a shared_classes class (`SharedMemory<T>()`)?"""
        m = _CONSTRUCTION.fullmatch(text)
        return bool(m and self.shared_classes().get(m.group(1)))

    def _shared_pointers(self, k: Function) -> dict[str, str]:
        cur = self.cursors.get((k.body.file, k.body.start))
        if cur is None:
            return {}
        src = self.p.unit.source(k.body.file)
        text = src.text(k.body.start, k.body.end)
        changed = self.changed(k.body)
        count: dict[str, int] = {}
        found: dict[str, str] = {}
        for c in cur.walk_preorder():
            if c.kind != CK.VAR_DECL:
                continue
            count[c.spelling] = count.get(c.spelling, 0) + 1
            init = [x for x in c.get_children() if x.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF, CK.TEMPLATE_REF)]
            sp = self.p.unit.span_of(init[-1]) if init else None
            if sp is None or c.type.get_canonical().kind != TK.POINTER:
                continue
            target = self.array_named(_named(init[-1]), k.body)
            if target is not None and target != DYNAMIC and not any(
                    d.name == target and d.type.rstrip().endswith("]") for d in self.p.shared):
                target = None   # (a __shared__ pointer variable holds any pointer: `p = sp` is no shared pointer)
            if target is None and self.shared_construction(src.text(sp.start, sp.end)):
                target = DYNAMIC
            if target is not None:
                found[c.spelling] = target
        return {n: t for n, t in found.items()
                if count.get(n) == 1 and n not in changed and not address_taken(n, text)}

    def constant_pointers(self, fn: Function) -> set[str]:
        """The local pointers into `__constant__` memory of function fn (a kernel or device function): declared
        once, from the address of a constant variable's own storage (`unsigned *dimBase = &c_Table[threadIdx.y][0];`,
        `const float *w = c_weights + 4;`: no pointer loaded from it), never changed nor addressed. Device code
        never writes constant memory, so an access through one reads what no thread writes: no race, and nothing
        the check follows (a constant variable's own accesses are not checked either)."""
        key = ("const", fn.body.file, fn.body.start)
        if key not in self._pointers:
            cur = self.cursors.get((fn.body.file, fn.body.start))
            # (a name also declared as a parameter, in an enclosing scope or twice: an access by that name may be
            # through the other variable)
            params = {x.spelling for x in cur.walk_preorder() if x.kind == CK.PARM_DECL} if cur is not None else set()
            self._pointers[key] = self._kept_pointers(fn.body, lambda init: _constant_address(init[-1]), params)
        return self._pointers[key]

    def _kept_pointers(self, body: Span, made, exclude: set[str]) -> set[str]:
        """The local pointers of the function whose body is `body` that are declared once, with an initializer
        `made(init)` accepts (the declaration's children but type references), and never changed nor addressed,
        less the names in `exclude`."""
        cur = self.cursors.get((body.file, body.start))
        found, count = set(), {}
        for c in cur.walk_preorder() if cur is not None else ():
            if c.kind != CK.VAR_DECL:
                continue
            count[c.spelling] = count.get(c.spelling, 0) + 1
            init = [x for x in c.get_children() if x.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF, CK.TEMPLATE_REF)]
            if init and c.type.get_canonical().kind == TK.POINTER and made(init):
                found.add(c.spelling)
        text = self.p.unit.source(body.file).text(body.start, body.end)
        changed = self.changed(body)   # (with the names a reference may change)
        return {n for n in found if count.get(n) == 1 and n not in exclude and n not in changed
                and not address_taken(n, text)}

    def param_pointers(self, k: Function, params: set[str]) -> set[str]:
        """The kernel's local pointers made from a pointer parameter in `params` by a number (`float *d_Dst =
        d_Output + base;`, `T *row = &out[i]`, or the parameter itself), declared once and never changed nor
        addressed. A parameter points where the host said, into global memory, never into a block's shared
        memory; so does a pointer moved from it by a number (an access outside its buffer is the bounds
        check's): no shared read sees a write through one."""
        return self._kept_pointers(k.body, lambda init: len(init) == 1 and _from_param(init[0], params), params)

    def _target(self, space: str, base: str, params: set[str]) -> str | None:
        """The shared array a write goes to, ANY, or None (memory no shared read can see)."""
        if space in ("global", "constant") or (space == "pointer" and base in self.constant_in):
            return None
        if space == "shared":
            return DYNAMIC if base in self.extern_in else (base or ANY)
        if base in self.pointers_in:
            return self.pointers_in[base]
        return None if base in params else ANY

    # -- one kernel -------------------------------------------------------------------------------
    def kernel(self, k: Function) -> tuple[set[Span], dict[Span, OwnWordForm], dict[Span, tuple]]:
        p, body = self.p, k.body
        cur = self.cursors.get((body.file, body.start))
        if cur is None:
            raise NotAnalysed("libclang gives no body for it")
        cuts = [b for b in p.barriers if b.scope == "block" and _inside(b.span, body)]
        for what, sp in p.special:
            if _inside(sp, body):
                raise NotAnalysed(f"it holds {what} (line {sp.line})")
        for sp in p.nested_bodies:
            if _inside(sp, body):
                raise NotAnalysed(f"it holds a lambda or a local class (line {sp.line})")
        # parameters the kernel changes may point anywhere after: they count as unknown pointers
        changed = self.changed(body)
        scope = Scope(p.unit, cur, p.unit.source(body.file).text(body.start, body.end), changed)
        self.uniform_ifs = self._uniform_ifs(cur, body, scope)
        for b in cuts:
            if any(_inside(b.span, br.span) and br.span != b.span and _inside(br.span, body)
                   and not (br.kind == "if" and br.span in self.uniform_ifs) for br in p.branches):
                raise NotAnalysed(f"its barrier at line {b.span.line} is conditional (inside a branch whose "
                                  f"condition may differ between the block's threads)")
        self.cut_spans = [b.span for b in cuts]
        params = set(k.params) - (changed - set(self.rebased(k)))
        # (a parameter whose address the kernel takes may be made to point anywhere: `int **pp = &out; *pp = s;`)
        text = p.unit.source(body.file).text(body.start, body.end)
        params -= {name for name in params if re.search(r"(?<![&\w])&\s*" + re.escape(name) + r"\b(?!\s*(\[|\.|->))", text)}
        self.pointers_in = self.shared_pointers(k)
        self.constant_in = self.constant_pointers(k)
        params = params | (self.param_pointers(k, params) - set(self.pointers_in))
        self.extern_in = {name for name in {d.name for d in p.shared} if self.array_named(name, body) == DYNAMIC}
        self.nodes: list[_Node] = [_Node([]), _Node([])]   # entry, exit
        self.loops: list[dict] = []
        self.heads: dict[int, tuple] = {}   # a loop holding a barrier: its head node -> (loop, body nodes)
        self.body_file = body.file
        outs = self._stmt(cur_body(cur), {0})
        for n in outs:
            self._edge(n, 1)
        self.nodes[0].cut = True
        # each access, atomic and call to its node
        def node_of(span: Span) -> int:
            if span.file != body.file:
                raise NotAnalysed(f"code at {span.where()} is written in another file (a macro's body)")
            for i, n in enumerate(self.nodes):
                if any(s <= span.start and span.end <= e for s, e in n.extents):
                    return i
            raise NotAnalysed(f"no statement of its body holds {span.where()}")
        lanes = _thread_index_names(cur, body, changed, p)
        trees = tree_vars(cur, p, scope, body, self.cut_spans)
        subscripts, ifs = {}, []   # (for offset_form)
        for c in cur.walk_preorder():
            sp = p.unit.span_of(c) if c.kind in (CK.ARRAY_SUBSCRIPT_EXPR, CK.IF_STMT) else None
            if sp is not None and c.kind == CK.ARRAY_SUBSCRIPT_EXPR:
                subscripts[(sp.start, sp.end)] = c
            elif sp is not None:
                kids = list(c.get_children())
                then = p.unit.span_of(kids[1]) if len(kids) >= 2 else None
                if then is not None and kids[0].kind not in (CK.DECL_STMT, CK.VAR_DECL):
                    ifs.append((then, kids[0]))
        ifs.sort(key=lambda x: x[0].start, reverse=True)   # the innermost first
        offsets: list[OffsetForm] = []   # the lane + offset writes, by the index in their token
        # the word of its array an access names, where known, is in its Word: each thread's own word
        # (OWN), its own word below s (BELOW), the word s above its own (ABOVE: tree_forms.py)
        reads: list[tuple[int, str, Span, Word]] = []      # node, array, the read, its word
        private: list[tuple[int, str, Word, str, Span, str]] = []   # node, array, word, form, the write, s
        for a in p.accesses:
            if a.span.file != body.file:
                if a.function == k.name:
                    raise NotAnalysed(f"its access at {a.span.where()} is written in another file (a macro's body)")
                continue
            if not _inside(a.span, body):
                continue
            i = node_of(a.span)
            t = self._target(a.space, a.base, params)
            known = t not in (None, ANY, DYNAMIC)
            tf = tree_form(a, lanes, trees, guards_of(a, p, body)) if known else None
            own = (_private_form(a, lanes) or (tf.lane if tf and tf.kind == "own" else None)) if known else None
            rword = Word(t) if t is not None else None
            if a.kind == "read" and tf and tf.kind == "offset":
                rword = Word(t, Reach.ABOVE, tf.lane, tf.var)
            elif a.kind == "read" and own:
                rword = Word(t, Reach.OWN, own)
            if a.kind == "read":
                if a.space == "shared" and a.base:
                    reads.append((i, t, a.span, rword))
            elif known and (own or (tf and tf.kind == "guarded")):
                form, var = (tf.lane, tf.var) if tf and tf.kind == "guarded" else (own, "")
                wword = Word(t, Reach.BELOW, form, var) if var else Word(t, Reach.OWN, form)
                private.append((i, t, wword, form, a.span, var))
                self.nodes[i].writes.add(wword)
                if a.kind == "rmw":
                    rword = Word(t, Reach.OWN, form)
            elif known and a.kind == "write" and \
                    (of := offset_form(a, subscripts.get((a.span.start, a.span.end)), ifs, scope)) is not None:
                offsets.append(of)
                wword = Word(t, Reach.OFFSET, of.lane, index=len(offsets) - 1)
                private.append((i, t, wword, of.lane, a.span, ""))
                self.nodes[i].writes.add(wword)
            elif t is not None:
                self.nodes[i].writes.add(Word(t))
            if a.kind != "write" and t is not None:
                self.nodes[i].reads.add(rword)
        atomics: list[tuple[int, str, Span]] = []   # node, shared array, the atomic
        for at in p.atomics:
            if not _inside(at.span, body):
                continue
            base = self.atomic_base(at)
            t = self.array_named(base, body) or self.pointers_in.get(base, None if base in params else ANY)
            if t is not None:
                word = EVERY if t == ANY else Word(t, Reach.ATOMIC)   # (atomics never race with each other)
                self.nodes[node_of(at.span)].writes.add(word)
                self.nodes[node_of(at.span)].reads.add(word)
                if t != ANY and at.bound in ("array", "dynamic") and at.bound_base is not None:
                    atomics.append((node_of(at.span), t, at.span))
        self.arg_accesses = []
        self.atomic_arrays = set()   # (the arrays its calls of atomic functions reach: apart.py leaves them to the check)
        calls: list[tuple[Span, str, list]] = []   # the context calls: (call, function, their ArgAccesses)
        atomic_calls: list[tuple[int, Span, AtomicCall]] = []   # calls of atomic functions (shared_calls.py)
        for c in cur.walk_preorder():
            ctx = self._context_call(c, body) if c.kind == CK.CALL_EXPR else None
            if ctx is not None and (sp := p.unit.span_of(c)) is not None:
                # (its reference arguments' words, read or read and written at the call: call_context.py)
                cf, args = ctx
                n = node_of(sp)
                for arg in args:
                    if arg.array is None:
                        continue   # (a local of the thread's own)
                    t = self.array_named(arg.array, body)
                    self.nodes[n].reads.add(Word(t))
                    if arg.kind != "read":
                        self.nodes[n].writes.add(Word(t))
                    else:
                        reads.append((n, t, arg.span, Word(t)))
                    self.arg_accesses.append((n, arg))
                calls.append((sp, cf.fn.name, args))
                continue
            if c.kind == CK.CALL_EXPR and (ac := atomic_call(self, k, c)) is not None and \
                    (sp := p.unit.span_of(c)) is not None:
                # (its atomics through pointers into declared shared arrays, at unknown words: shared_calls.py)
                n = node_of(sp)
                for t in ac.arrays.values():
                    self.nodes[n].writes.add(Word(t, Reach.ATOMIC))
                    self.nodes[n].reads.add(Word(t, Reach.ATOMIC))
                    self.atomic_arrays.add(t)
                atomic_calls.append((n, sp, ac))
                continue
            if c.kind == CK.CALL_EXPR:
                syncs, writes, reads_any = self._callee_effects(c)
                if syncs:
                    raise NotAnalysed(f"it calls {c.spelling or 'a function'}, which synchronises the block")
                if writes or reads_any:
                    sp = p.unit.span_of(c)
                    if sp is None:
                        raise NotAnalysed(f"libclang gives no place for its call of {c.spelling or 'a function'}")
                    if writes:
                        self.nodes[node_of(sp)].writes.add(EVERY)
                    if reads_any:
                        self.nodes[node_of(sp)].reads.add(EVERY)
            elif c.kind in (CK.ASM_STMT, CK.GOTO_STMT, CK.INDIRECT_GOTO_STMT, CK.LABEL_STMT):
                raise NotAnalysed("it holds inline assembly, a goto or a label")
            if c.kind in DESTROYED and any(self.destroyed_effects(c)):   # (it runs where its scope ends)
                raise NotAnalysed(f"an object it makes is destroyed by {destroyed_by(c)[0]}, which touches memory or "
                                  f"synchronises where no call shows")
        # what each interval start (a barrier, or the entry) reaches without passing another
        # barrier, that barrier's own statement included: its writes and reads
        starts: dict[int, tuple[set[Word], set[Word]]] = {}
        for i, n in enumerate(self.nodes):
            if n.cut:
                seen, todo, w, r = {i}, list(n.succ), set(n.writes), set(n.reads)
                while todo:
                    j = todo.pop()
                    if j in seen:
                        continue
                    seen.add(j)
                    w |= self.nodes[j].writes
                    r |= self.nodes[j].reads
                    if not self.nodes[j].cut:
                        todo.extend(self.nodes[j].succ)
                starts[i] = (w, r)

        def interval(i: int) -> tuple[set[Word], set[Word]]:
            """The writes and reads of every interval node i can be in."""
            seen, todo, w, r = {i}, list(self.nodes[i].pred), set(), set()
            while todo:
                j = todo.pop()
                if j in seen:
                    continue
                seen.add(j)
                if self.nodes[j].cut:
                    w |= starts[j][0]
                    r |= starts[j][1]
                else:
                    todo.extend(self.nodes[j].pred)
            return w, r
        quiet: set[Span] = set()
        alone: dict[Span, OwnWordForm] = {}
        for i, key, span, word in reads:
            if self.nodes[i].cut:
                continue
            w, _ = interval(i)
            writes = {x for x in w if x.array == key}
            if EVERY in w:
                continue
            if not writes:   # nothing writes the array in the interval
                quiet.add(span)
            elif word.reach is Reach.ABOVE:   # the word s above a thread's own, where every write is below s
                if writes == {Word(key, Reach.BELOW, word.lane, word.var)}:
                    quiet.add(span)
            elif word.reach is Reach.OWN:   # the thread's own word, where every write is to the writer's own
                if all(x == word or (x.reach is Reach.BELOW and x.lane == word.lane) for x in writes):
                    alone[span] = OwnForm(word.lane)
        for i, key, span in atomics:   # where every access to the array is an atomic
            if not self.nodes[i].cut:
                w, r = interval(i)
                if EVERY not in w and EVERY not in r and \
                        all(x.array != key or x == Word(key, Reach.ATOMIC) for x in w | r):
                    quiet.add(span)
        for i, sp, ac in atomic_calls:   # a call whose arrays only atomics touch in its interval
            if not self.nodes[i].cut:
                w, r = interval(i)
                if EVERY not in w and EVERY not in r and all(
                        x.array != t or x == Word(t, Reach.ATOMIC) for t in ac.arrays.values() for x in w | r):
                    self.atomic_calls[(sp.file, sp.start, sp.end)] = ac
        for i, key, word, form, span, var in private:
            if self.nodes[i].cut:
                continue
            w, r = interval(i)
            # every write to the array has this form, and every read is a thread's own word (or,
            # below s, the word s above it)
            fine = {Word(key, Reach.OWN, form)} | ({Word(key, Reach.ABOVE, form, var)} if var else set())
            if EVERY not in w and EVERY not in r and all(x.array != key or x == word for x in w) and \
                    all(x.array != key or x in fine for x in r) and word.reach is not Reach.OFFSET:
                alone[span] = OwnForm(form)
                continue
            # lane + offset writes (and a thread's own word of a one-dimensional array), no read: each
            # thread's words are its own where their ranges lie apart (tested at the launch)
            mine = sorted((x for x in w if x.array == key), key=str)
            if var or EVERY in w or EVERY in r or any(x.array == key for x in r) or \
                    not any(x.reach is Reach.OFFSET for x in mine):
                continue
            forms = []
            for x in mine:
                if x.reach is Reach.OFFSET and x.lane == form:
                    forms.append(offsets[x.index])
                elif x.reach is Reach.OWN and x.lane == form and len(form) == 1:
                    forms.append(OffsetForm(form, "0ll", f"blockDim.{form}"))
                else:
                    break   # (a write of another form, or of any word: not apart)
            else:
                alone[span] = LaneRanges(form, tuple(forms))
        # accesses whose index proves that no other thread's access meets them (apart.py)
        for span, flat in apart_accesses(self, k, cur, params, changed, node_of, self.heads, EVERY,
                                         subscripts).items():
            if span in quiet or span in alone:
                continue
            if not flat and any(a.span == span and a.kind == "read" for a in p.accesses):
                quiet.add(span)
            else:
                alone[span] = Apart(flat)
        # accesses whose index lies inside their array (bounds.py): their bounds test goes from a quiet version
        inside = inside_accesses(self, k, cur, params, changed, self.heads, subscripts)
        for sp, name, args in calls:   # a call whose every reference argument's word is proved: its conditions
            conds, launch, sizes = [], [], []
            for arg in args:
                if arg.array is None:
                    sizes.append("")
                    continue
                form = alone.get(arg.span)
                if arg.span not in quiet and form is None:
                    break
                if form is not None:
                    launch.append(form.condition(arg.array))
                    conds.append(launch[-1].device())
                size = "::hirace::kDynamicShared" if self.array_named(arg.array, body) == DYNAMIC else \
                    f"sizeof({arg.array})"
                conds.append(f"::hirace::in_declared(&({arg.text}), {arg.array}, {size})")
                sizes.append(size)
            else:
                close = p.unit.source(sp.file).text(sp.end - 1, sp.end)
                if close == ")":
                    self.context_calls[(sp.file, sp.start, sp.end)] = ContextCall(name, sp.end - 1, conds, launch, args, sizes)
        return quiet, alone, inside

    def _uniform_ifs(self, cur: cindex.Cursor, body: Span, scope: Scope) -> dict[Span, tuple]:
        """The kernel's `if` statements whose condition every thread of a block computes alike (own_index
        `Scope.uniform`: unchanged integer parameters, template values, literals, `blockDim`, `gridDim` and
        locals of such values, no call, no memory): by span, the condition's cursor and the arms'. All of a
        block's threads take the same arm, so a barrier in an arm is reached by all of them or by none, and
        the intervals on either path are those of straight code (`if (log2N & 1) { __syncthreads(); ... }`)."""
        plain = {br.span for br in self.p.branches if br.kind == "if" and br.plain_cond and _inside(br.span, body)}
        out: dict[Span, tuple] = {}
        for c in cur.walk_preorder():
            if c.kind != CK.IF_STMT:
                continue
            sp = self.p.unit.span_of(c)
            kids = list(c.get_children())
            if sp not in plain or len(kids) not in (2, 3):
                continue
            try:
                scope.uniform(kids[0])
            except (_NotLinear, RecursionError):
                continue
            out[sp] = (kids[0], tuple(kids[1:]))
        return out

    # -- the control flow of statements that hold barriers ----------------------------------------
    def _edge(self, a: int, b: int) -> None:
        self.nodes[a].succ.add(b)
        self.nodes[b].pred.add(a)

    def _new(self, extents, preds) -> int:
        self.nodes.append(_Node(list(extents)))
        i = len(self.nodes) - 1
        for q in preds:
            self._edge(q, i)
        return i

    def _has_cut(self, c: cindex.Cursor) -> bool:
        sp = self.p.unit.span_of(c)
        if sp is None:
            raise NotAnalysed("libclang gives no place for one of its statements")
        return any(_inside(b, sp) for b in self.cut_spans)

    def _extent(self, c: cindex.Cursor) -> tuple[int, int]:
        sp = self.p.unit.span_of(c)
        if sp is None or sp.file != self.body_file:
            raise NotAnalysed("one of its statements is written in another file (a macro's body)")
        return sp.start, sp.end

    def _jumps(self, c: cindex.Cursor, node: int, in_switch=False, in_loop=False) -> None:
        """The break and continue statements in c that leave it for the loop being built."""
        if not self.loops:
            return
        if c.kind == CK.BREAK_STMT and not in_switch and not in_loop:
            self.loops[-1]["breaks"].add(node)
        elif c.kind == CK.CONTINUE_STMT and not in_loop:
            self.loops[-1]["continues"].add(node)
        in_switch = in_switch or c.kind == CK.SWITCH_STMT
        in_loop = in_loop or c.kind in _LOOPS
        for k in c.get_children():
            self._jumps(k, node, in_switch, in_loop)

    def _stmt(self, c: cindex.Cursor, preds: set[int]) -> set[int]:
        """Add statement c, entered from preds; return the nodes it leaves from."""
        if not self._has_cut(c):
            i = self._new([self._extent(c)], preds)
            self._jumps(c, i)
            return {i}
        if c.kind == CK.COMPOUND_STMT:
            for k in c.get_children():
                preds = self._stmt(k, preds)
            return preds
        inner = list(c.get_children()) if c.kind == CK.UNEXPOSED_STMT else []
        if len(inner) == 1 and inner[0].kind in _LOOPS:   # (`#pragma unroll` before a loop: the loop)
            return self._stmt(inner[0], preds)
        if c.kind in _LOOPS:
            kids = list(c.get_children())
            body, head = (kids[0], kids[1:]) if c.kind == CK.DO_STMT else (kids[-1], kids[:-1])
            if any(self._has_cut(h) for h in head):
                raise NotAnalysed("a barrier in a loop's header")
            h = self._new([self._extent(x) for x in head], set() if c.kind == CK.DO_STMT else preds)
            self.loops.append({"breaks": set(), "continues": set()})
            outs = self._stmt(body, preds | {h} if c.kind == CK.DO_STMT else {h})
            loop = self.loops.pop()
            self.heads[h] = (c, h + 1, len(self.nodes))
            for n in outs | loop["continues"]:
                self._edge(n, h)
            return {h} | loop["breaks"]
        sp = self.p.unit.span_of(c)
        if c.kind == CK.IF_STMT and sp in self.uniform_ifs:
            # every thread of the block takes the same arm (_uniform_ifs): the condition, then either arm
            cond, arms = self.uniform_ifs[sp]
            h = self._new([self._extent(cond)], preds)
            outs = self._stmt(arms[0], {h})
            return outs | (self._stmt(arms[1], {h}) if len(arms) > 1 else {h})
        if c.kind in (CK.IF_STMT, CK.SWITCH_STMT, CK.CASE_STMT, CK.DEFAULT_STMT, CK.LABEL_STMT):
            raise NotAnalysed("a barrier inside an if, a switch or a labelled statement")
        # a statement that holds a barrier (and maybe more): it ends the intervals on both sides,
        # its own accesses belong to both
        i = self._new([self._extent(c)], preds)
        self.nodes[i].cut = True
        return {i}


def _from_param(c: cindex.Cursor, params: set[str]) -> bool:
    """Is c a pointer parameter in `params`, moved by a number (`p + n`, `n + p`, `p - n`, `&p[i]`), maybe
    converted (`(float *)p`) or in parentheses (shared_calls `_root`)?"""
    r = _root(c)
    ref = r.referenced if r is not None else None
    return ref is not None and ref.kind == CK.PARM_DECL and ref.spelling in params and \
        ref.type.get_canonical().kind == TK.POINTER


def _named(c: cindex.Cursor) -> str:
    """The variable an expression names, through casts and parentheses (`(T *)__smem` -> `__smem`), or ''."""
    while c.kind in (CK.UNEXPOSED_EXPR, CK.PAREN_EXPR, CK.CSTYLE_CAST_EXPR, CK.CXX_STATIC_CAST_EXPR,
                     CK.CXX_REINTERPRET_CAST_EXPR, CK.RETURN_STMT):
        kids = [k for k in c.get_children() if k.kind not in (CK.TYPE_REF, CK.TEMPLATE_REF, CK.NAMESPACE_REF)]
        if len(kids) != 1:
            return ""
        c = kids[0]
    if c.kind == CK.DECL_REF_EXPR and c.referenced is not None and c.referenced.kind == CK.VAR_DECL:
        return c.spelling
    return ""


def cur_body(fn_cursor: cindex.Cursor) -> cindex.Cursor:
    return next(k for k in fn_cursor.get_children() if k.kind == CK.COMPOUND_STMT)


@dataclass
class Intervals:
    """What the barrier-interval analysis proved of a unit's kernels, by access (file, start, end):
    `quiet`: reads of a shared array that share no barrier interval with a write to it (and atomics
    on an array only atomics touch in their interval); `alone`: accesses that name their thread's
    own words in their interval, with the form that says under which launch condition;
    `not_analysed`: kernel name -> why the analysis did not take it on."""
    quiet: set[tuple[str, int, int]] = field(default_factory=set)
    alone: dict[tuple[str, int, int], OwnWordForm] = field(default_factory=dict)
    not_analysed: dict[str, str] = field(default_factory=dict)
    # accesses to a declared array whose index lies inside it (bounds.py): the caps of the block it needs
    inside: dict[tuple[str, int, int], tuple] = field(default_factory=dict)


def shared_intervals(prog: Program, an: KernelFacts | None = None) -> Intervals:
    """Every read of a shared array, in a kernel's own body, that shares no barrier interval with a
    write to that array (quiet); and every write `A[threadIdx.y][threadIdx.x] = v` (or `A[threadIdx.x]`,
    the indices maybe through local copies) in an interval where no thread reads A and every write to
    A has that form, with the form ('yx', 'x'): each thread writes its own word there when the block
    fits the array (conditions.OwnWord), so the write races with nothing (alone); likewise lane +
    offset writes and the accesses apart.py proves apart. A kernel the analysis does not take on, or
    whose code it fails on, gets nothing, with the reason."""
    an = an or KernelFacts(prog)
    out = Intervals()
    for k in prog.kernels:
        try:
            q, w, inside = an.kernel(k)
        except NotAnalysed as e:
            out.not_analysed[k.name] = str(e)
            continue
        except (ValueError, AttributeError, KeyError, IndexError) as e:   # a construct libclang or we do
            out.not_analysed[k.name] = (f"the analysis does not know one of its constructs "   # not know
                                        f"({type(e).__name__}: {e})")
            continue
        out.quiet |= {(s.file, s.start, s.end) for s in q}
        out.alone.update({(s.file, s.start, s.end): f for s, f in w.items()})
        out.inside.update({(s.file, s.start, s.end): c for s, c in inside.items()})
    return out


def quiet_shared_reads(prog: Program) -> set[tuple[str, int, int]]:
    """The quiet reads of shared_intervals."""
    return shared_intervals(prog).quiet


_SUBSCRIPTS = re.compile(r"\s*(\w+)\s*\[\s*([\w.]+)\s*\](?:\s*\[\s*([\w.]+)\s*\])?\s*")


def _private_form(a, lanes: dict[str, str]) -> str | None:
    """'yx' for `A[threadIdx.y][threadIdx.x]`, 'x' for `A[threadIdx.x]` ... (lanes: local names of
    threadIdx components); None for any other subscript."""
    if a.bound != "array":
        return None
    m = _SUBSCRIPTS.fullmatch(a.text)
    if not m or m.group(1) != a.base:
        return None
    comps = [lanes.get(g) for g in m.groups()[1:] if g is not None]
    if not comps or None in comps or len(set(comps)) != len(comps):
        return None
    return "".join(comps)


def _thread_index_names(cur: cindex.Cursor, body: Span, changed: set[str], prog: Program) -> dict[str, str]:
    """`threadIdx.x` ... and the kernel's local variables that hold one of them unchanged:
    `int tx = threadIdx.x;` with no assignment, increment or address taken after."""
    names = {f"threadIdx.{d}": d for d in "xyz"}
    src = prog.unit.source(body.file)
    text = src.text(body.start, body.end)
    seen: dict[str, int] = {}
    for c in cur.walk_preorder():
        if c.kind == CK.VAR_DECL:
            seen[c.spelling] = seen.get(c.spelling, 0) + 1
            init = [k for k in c.get_children() if k.kind != CK.TYPE_REF]
            sp = prog.unit.span_of(init[-1]) if init else None
            if sp is None or c.type.get_canonical().kind not in (TK.INT, TK.UINT, TK.LONG, TK.ULONG,
                                                                  TK.LONGLONG, TK.ULONGLONG):
                continue
            value = re.sub(r"^\(\s*(?:unsigned\s+)?(?:int|long)\s*\)", "", src.text(sp.start, sp.end).strip()).strip()
            if value in names and len(value) > 1:
                names[c.spelling] = names[value]
    for name in list(names):
        if "." not in name and (seen.get(name, 0) != 1 or name in changed or address_taken(name, text)):
            del names[name]
    return names

