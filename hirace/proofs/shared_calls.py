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
its launches write known. The function's own accesses stay checked whole (the whole check finds a pointer
that leaves shared memory, as it does for the kernel's own pointers into it).
"""
from __future__ import annotations

from clang import cindex

from instrument.frontend.query import BARRIERS, DESTROYED, Function, atomic_parts
from .intervals import _number
from .own_index import _bare, address_taken, direct

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
    name = r.spelling
    if ref is None or ref.kind != CK.VAR_DECL:
        return False
    if name in {d.name for d in facts.p.shared} and facts.array_named(name, k.body) is not None:
        return True
    if name in facts.shared_pointers(k):
        return True
    return _shared_local(facts, k, ref, depth)


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
    for j in eff:
        sp = facts.p.unit.span_of(args[j])
        if sp is None or not _inside(sp, where) or not into_shared(facts, k, _bare(args[j])):
            return False
    return True
