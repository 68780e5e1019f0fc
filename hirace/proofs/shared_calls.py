"""Calls of device functions that touch memory only through pointer parameters the call binds to shared memory.

A histogram counts into its block's shared array through helpers:

    __device__ void addByte(uint *s_WarpHist, uint data) { atomicAdd(s_WarpHist + data, 1); }
    __device__ void addWord(uint *s_WarpHist, uint data) { addByte(s_WarpHist, data & 0xFFU); ... }
    ...
    uint *s_WarpHist = s_Hist + (threadIdx.x >> 5) * 256;   // in the kernel
    addWord(s_WarpHist, d_Data[pos]);

`param_effects` says what such a function does: it reaches memory only through its pointer parameters
(their accesses `p[i]`, `*p`, `p->f`, atomics at `p + i` or `&p[i]`, none through a pointer loaded from
there), never changes nor addresses them, holds no barrier, inline assembly, `new`, lambda, memcpy or
object whose destructor may touch memory, and calls only functions that touch nothing and functions of this
kind, passing them its own parameters (maybe moved by a number) where they reach memory. Its answer is,
per such parameter, how the function reaches it: read, write, atomic.

`shared_call` says whether a kernel's call of such a function binds every parameter that reaches memory to
the kernel's shared memory: a declared (or its extern) shared array, a local pointer into one
(intervals.py `shared_pointers`), or such a pointer moved by a number (`s_Hist + n`, `&s_Hist[i]`), kept
in a local pointer declared once and never changed nor addressed. Such a call writes no global buffer and
reads none: to the parameter analysis (readonly_params.py) it is shared-memory work, as the kernel's own
accesses of its shared arrays are, so the kernel's reads of its parameters may be read-only and the buffers
its launches write known. (A `__shared__` pointer variable is no shared memory: it may hold any pointer; an array
is taken by its declaration, never by its name; an index or offset naming a pointer, `b[g - b]`, is refused. An
integer that holds a pointer difference, `s + off` with `off = g - s`, is taken for a number: pointer arithmetic
outside its array is undefined behaviour in C++, which the analysis assumes away, as readonly_params' local
pointers do.) The function's own accesses stay checked whole (the whole check finds a pointer
that leaves shared memory, as it does for the kernel's own pointers into it), but for the atomic functions
below.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from clang import cindex

from instrument.frontend.query import BARRIERS, DESTROYED, Function, atomic_parts
from .apart import DYNAMIC
from .call_context import extendable
from .own_index import _bare, _number, address_taken, direct

CK = cindex.CursorKind
TK = cindex.TypeKind

_CASTS = (CK.UNEXPOSED_EXPR, CK.PAREN_EXPR, CK.CSTYLE_CAST_EXPR, CK.CXX_STATIC_CAST_EXPR,
          CK.CXX_REINTERPRET_CAST_EXPR)


def _inside(span, outer) -> bool:
    return span.file == outer.file and outer.start <= span.start and span.end <= outer.end


def _stripped(c: cindex.Cursor) -> cindex.Cursor:
    """c through parentheses and casts."""
    while c.kind in _CASTS:
        kids = [k for k in c.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF, CK.TEMPLATE_REF)]
        if len(kids) != 1:
            return c
        c = kids[0]
    return c


def _pointer(c: cindex.Cursor) -> bool:
    return c.type.get_canonical().kind == TK.POINTER


def _root(c: cindex.Cursor, depth: int = 0) -> cindex.Cursor | None:
    """The variable a pointer expression moves by a number (`p`, `p + n`, `n + p`, `p - n`, `&p[i]`, casts,
    parentheses): its reference, or None."""
    c = _stripped(c)
    if depth > 20:
        return None
    if c.kind == CK.DECL_REF_EXPR:
        return c if c.referenced is not None and (_pointer(c) or c.type.get_canonical().kind in (
            TK.CONSTANTARRAY, TK.INCOMPLETEARRAY)) else None
    kids = [k for k in c.get_children() if k.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF, CK.TEMPLATE_REF)]
    if c.kind == CK.BINARY_OPERATOR and len(kids) == 2:
        a, b = kids
        toks = [t.spelling for t in c.get_tokens()]
        tail = [t.spelling for t in b.get_tokens()]
        op = toks[len(toks) - len(tail) - 1] if tail and len(toks) > len(tail) else ""
        if op in ("+", "-") and not _pointer(b) and _number(b):
            return _root(a, depth + 1)
        if op == "+" and not _pointer(a) and _number(a):
            return _root(b, depth + 1)
        return None
    if c.kind == CK.UNARY_OPERATOR and len(kids) == 1 and [t.spelling for t in c.get_tokens()][:1] == ["&"]:
        sub = _stripped(kids[0])
        parts = list(sub.get_children()) if sub.kind == CK.ARRAY_SUBSCRIPT_EXPR else []
        return _root(parts[0], depth + 1) if len(parts) == 2 and _number(parts[1]) else None
    return None


def _one_definition(prog, c: cindex.Cursor) -> Function | None:
    """The program's one definition of the function call c names, where libclang resolves the call to it."""
    ref = c.referenced
    if ref is None or ref.kind != CK.FUNCTION_DECL:
        return None
    fns = [f for f in prog.definitions if f.name == c.spelling and f.kind in ("device", "host_device")]
    if len(fns) != 1:
        return None
    d = ref.get_definition()
    f = fns[0]
    if d is None or d.location.file is None or d.location.file.name != f.body.file or \
            not (f.span.start <= d.location.offset <= f.body.start):
        return None
    return f


def param_effects(facts, fn: Function, seen: frozenset = frozenset()) -> dict[int, frozenset[str]] | None:
    """How the device function reaches memory, by pointer parameter position ('read', 'write', 'atomic'),
    where it reaches memory only through them (see the module); else None."""
    key = (fn.body.file, fn.body.start)
    cache = facts.__dict__.setdefault("_param_effects", {})
    if key in cache:
        return cache[key]
    if key in seen:   # (recursion)
        return None
    got = _param_effects(facts, fn, seen | {key})
    cache[key] = got
    return got


def _param_effects(facts, fn: Function, seen: frozenset) -> dict[int, frozenset[str]] | None:
    p = facts.p
    cur = p.cursors.get((fn.body.file, fn.body.start))
    if cur is None or cur.kind != CK.FUNCTION_DECL:
        return None
    parms = [c for c in cur.get_children() if c.kind == CK.PARM_DECL]
    if [c.spelling for c in parms] != list(fn.params):
        return None
    text = p.unit.source(fn.body.file).text(fn.body.start, fn.body.end)
    changed = facts.changed(fn.body)
    ptrs = {c.spelling: i for i, c in enumerate(parms)
            if _pointer(c) and c.spelling not in changed and not address_taken(c.spelling, text)}
    if any(_inside(x.span, fn.body) for x in [*p.barriers, *p.ranges]) or \
            any(_inside(sp, fn.body) for sp in p.nested_bodies) or \
            any(_inside(sp, fn.body) for _, sp in p.special):
        return None
    out: dict[int, set[str]] = {}
    for a in p.accesses:
        if not _inside(a.span, fn.body) or a.space == "local":
            continue
        if a.space != "pointer" or a.base not in ptrs or a.form != "lvalue" or not direct(a.text, a.base):
            return None
        out.setdefault(ptrs[a.base], set()).update({"read", "write"} if a.kind == "rmw" else {a.kind})

    def param_of(x: cindex.Cursor) -> int | None:
        r = _root(x)
        ref = r.referenced if r is not None else None
        return ptrs.get(r.spelling) if ref is not None and ref.kind == CK.PARM_DECL else None
    for c in cur.walk_preorder():
        if c.kind in (CK.ASM_STMT, CK.CXX_NEW_EXPR):
            return None
        if c.kind == CK.ARRAY_SUBSCRIPT_EXPR:   # (`b[g - b]` is *g: an index must name no pointer)
            kids = list(c.get_children())
            if len(kids) == 2 and param_of(kids[0]) is not None and not _number(kids[1]):
                return None
        if c.kind in DESTROYED and any(facts.destroyed_effects(c)):
            return None
        if c.kind != CK.CALL_EXPR or c is cur:
            continue
        name = c.spelling
        args = list(c.get_arguments())
        if atomic_parts(name):
            i = param_of(args[0]) if args else None
            if i is None:
                return None
            out.setdefault(i, set()).add("atomic")
            continue
        if name in BARRIERS or name == "sync":
            return None
        g = _one_definition(p, c)
        if g is not None:
            inner = param_effects(facts, g, seen)
            if inner is None or len(args) != len(g.params):
                return None
            for j, kinds in inner.items():
                i = param_of(args[j])
                if i is None:
                    return None
                out.setdefault(i, set()).update(kinds)
            continue
        if any(facts._callee_effects(c)):
            return None
    return {i: frozenset(k) for i, k in out.items()}


def into_shared(facts, k: Function, c: cindex.Cursor, depth: int = 0) -> bool:
    """Does pointer expression c, in kernel k, point into the kernel's shared memory (see the module)?"""
    r = _root(c)
    if r is None or depth > 8:
        return False
    ref = r.referenced
    if ref is None or ref.kind != CK.VAR_DECL:
        return False
    if _shared_decl(facts, ref):
        return True
    if ref.spelling in facts.shared_pointers(k):   # (declared once in the kernel: this declaration)
        sp = facts.p.unit.span_of(ref)
        return sp is not None and _inside(sp, k.body)
    return _shared_local(facts, k, ref, depth)


def _shared_decl(facts, ref: cindex.Cursor) -> bool:
    """Is `ref` the declaration of a __shared__ array itself (not a __shared__ pointer variable, which may hold
    any pointer, nor another variable of the same name)?"""
    if ref.type.get_canonical().kind not in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
        return False
    sp = facts.p.unit.span_of(ref)
    return sp is not None and any(d.span == sp for d in facts.p.shared)


def _shared_local(facts, k: Function, ref: cindex.Cursor, depth: int = 0) -> bool:
    """Is `ref` a local pointer of kernel k's, declared once with a value into its shared memory, never
    changed nor addressed?"""
    name = ref.spelling
    sp = facts.p.unit.span_of(ref)
    if sp is None or not _inside(sp, k.body) or not _pointer(ref) or \
            ref.storage_class in (cindex.StorageClass.STATIC, cindex.StorageClass.EXTERN):
        return False
    cur = facts.cursors.get((k.body.file, k.body.start))
    if cur is None:
        return False
    decls = [x for x in cur.walk_preorder() if x.kind == CK.VAR_DECL and x.spelling == name]
    text = facts.p.unit.source(k.body.file).text(k.body.start, k.body.end)
    if len(decls) != 1 or name in facts.changed(k.body) or address_taken(name, text):
        return False
    init = [x for x in decls[0].get_children() if x.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF, CK.TEMPLATE_REF)]
    return len(init) == 1 and into_shared(facts, k, init[0], depth + 1)


def shared_locals(facts, k: Function) -> set[str]:
    """The kernel's local pointers into its shared memory, as `into_shared` finds them, by name."""
    cur = facts.cursors.get((k.body.file, k.body.start))
    if cur is None:
        return set()
    return {x.spelling for x in cur.walk_preorder() if x.kind == CK.VAR_DECL and _pointer(x) and
            _shared_local(facts, k, x)}


def shared_call(facts, k: Function, c: cindex.Cursor) -> bool:
    """Is call c, in kernel k, of a device function that reaches memory only through pointer parameters which
    this call binds to the kernel's shared memory (see the module)?"""
    fn = _one_definition(facts.p, c)
    if fn is None:
        return False
    eff = param_effects(facts, fn)
    args = list(c.get_arguments())
    where = facts.p.unit.span_of(c)
    if eff is None or len(args) != len(fn.params) or where is None:
        return False
    for a in args:   # (a default argument is written at the declaration: the call does not bind it)
        sp = facts.p.unit.span_of(a)
        if sp is None or not _inside(sp, where):
            return False
    return all(into_shared(facts, k, _bare(args[j])) for j in eff)


def shared_array(facts, k: Function, c: cindex.Cursor, depth: int = 0) -> str | None:
    """The declared shared array (not an extern one) that pointer expression c, in kernel k, points into, by
    name, as `into_shared` finds it; else None."""
    r = _root(c)
    ref = r.referenced if r is not None else None
    if ref is None or ref.kind != CK.VAR_DECL or depth > 8:
        return None
    name = r.spelling
    if _shared_decl(facts, ref):
        # (the call passes the array by its name: no other declaration of the kernel may take that name)
        cur = facts.cursors.get((k.body.file, k.body.start))
        others = [x for x in cur.walk_preorder() if x.kind in (CK.VAR_DECL, CK.PARM_DECL) and x.spelling == name
                  and facts.p.unit.span_of(x) != facts.p.unit.span_of(ref)] if cur is not None else [None]
        t = facts.array_named(name, k.body) if not others else None
    elif into_shared(facts, k, r) and name in facts.shared_pointers(k):
        t = facts.shared_pointers(k)[name]
    elif _shared_local(facts, k, ref):
        decl = next(x for x in facts.cursors[(k.body.file, k.body.start)].walk_preorder()
                    if x.kind == CK.VAR_DECL and x.spelling == name)
        init = [x for x in decl.get_children() if x.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF, CK.TEMPLATE_REF)]
        t = shared_array(facts, k, init[0], depth + 1)
    else:
        t = None
    return t if t not in (None, DYNAMIC) else None


# -- atomics through pointer parameters, quiet in the calls that prove their arrays atomic-only --------------
#
# A function whose every access is an atomic through its pointer parameters (`addByte` above, and `addWord`,
# which passes its parameter on) gets two parameters per such pointer parameter p after its last one,
# `const volatile void *__hirace_in_p = nullptr, unsigned long long __hirace_n_p = 0`: the declared shared
# array p points into and its size, where the call proved that in its barrier interval every access of that
# array is an atomic (intervals.py: atomics never race with each other); its atomics through p then test only
# that they lie inside that array (quiet.h `atomic_device_ctx`, `atomic_block_ctx`; one outside it is
# reported), and take the whole check where the array is null (every other call). Its calls of such functions
# pass its own two on for the parameters they bind to p. A function takes part where the program defines it
# once, as a plain `__device__` function (no template, no member, no earlier declaration), and names it
# nowhere but as a call's callee (the parameters change its type).

IN_PREFIX, SIZE_PREFIX = "__hirace_in_", "__hirace_n_"


@dataclass
class AtomicFunction:
    """A function whose accesses are all atomics through its pointer parameters `params` (by position)."""
    fn: Function
    params: dict[int, str]
    insert_at: int                       # the offset after its last parameter
    sites: set = field(default_factory=set)         # its atomics through them, (file, start, end) -> param name
    site_param: dict = field(default_factory=dict)  # (file, start, end) -> the parameter the atomic reaches
    # its calls of other such functions: (call's (file, start, end), close offset, callee, {callee position:
    # this function's parameter the argument moves})
    inner: list = field(default_factory=list)

    def header(self) -> str:
        return "".join(f", const volatile void *{IN_PREFIX}{p} = nullptr, unsigned long long {SIZE_PREFIX}{p} = 0"
                       for _, p in sorted(self.params.items()))


def atomic_functions(facts) -> dict[str, AtomicFunction]:
    """The program's functions that take part (see above), by name."""
    cache = facts.__dict__.get("_atomic_functions")
    if cache is not None:
        return cache
    p = facts.p
    out: dict[str, AtomicFunction] = {}
    for f in p.definitions:
        eff = param_effects(facts, f) if f.kind == "device" else None
        got = extendable(p, f) if eff and all(kinds == {"atomic"} for kinds in eff.values()) else None
        if got is None:
            continue
        cur, parms, insert_at = got
        if any(x.kind.is_expression() for c in parms for x in c.get_children()):
            continue   # (a default argument: a call that leaves it out would bind the arrays to it)
        af = AtomicFunction(f, {i: parms[i].spelling for i in eff}, insert_at)
        names = {n: i for i, n in af.params.items()}
        for at in p.atomics:
            if _inside(at.span, f.body):
                af.site_param[(at.span.file, at.span.start, at.span.end)] = None
        for c in cur.walk_preorder():
            if c.kind != CK.CALL_EXPR or c is cur:
                continue
            args = list(c.get_arguments())
            sp = p.unit.span_of(c)
            if atomic_parts(c.spelling) and args and sp is not None:
                r = _root(args[0])
                got = (sp.file, sp.start, sp.end)
                if got in af.site_param and r is not None and r.spelling in names:
                    af.site_param[got] = r.spelling
            elif (g := _one_definition(p, c)) is not None and sp is not None and \
                    p.unit.source(sp.file).text(sp.end - 1, sp.end) == ")":
                moved = {}
                for j, kinds in (param_effects(facts, g) or {}).items():
                    r = _root(args[j]) if j < len(args) else None
                    if r is not None and r.spelling in names:
                        moved[j] = r.spelling
                af.inner.append(((sp.file, sp.start, sp.end), sp.end - 1, g.name, moved))
        if any(v is None for v in af.site_param.values()):
            continue   # (param_effects found each atomic through a parameter; a mismatch here: not taken)
        out[f.name] = af
    facts.__dict__["_atomic_functions"] = out
    return out


@dataclass(frozen=True)
class AtomicCall:
    """A kernel's call of an atomic function: the node's arrays by the function's parameter position."""
    function: str
    close: int
    arrays: dict


def atomic_call(facts, k: Function, c: cindex.Cursor) -> AtomicCall | None:
    """A call in kernel k of an atomic function binding each of its pointer parameters to a declared shared
    array of the kernel's (shared_call), or None."""
    af = atomic_functions(facts).get(c.spelling)
    if af is None or _one_definition(facts.p, c) != af.fn:
        return None
    if not shared_call(facts, k, c):
        return None
    args = list(c.get_arguments())
    arrays = {j: shared_array(facts, k, _bare(args[j])) for j in af.params}
    sp = facts.p.unit.span_of(c)
    if sp is None or any(t is None for t in arrays.values()) or \
            facts.p.unit.source(sp.file).text(sp.end - 1, sp.end) != ")":
        return None
    return AtomicCall(af.fn.name, sp.end - 1, arrays)
