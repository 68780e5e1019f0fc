"""Device functions whose accesses are quiet at the calls that prove their arguments' words apart.

A sorting network's comparator takes its two keys by reference and swaps them:

    __device__ inline void Comparator(uint &keyA, uint &valA, uint &keyB, uint &valB, uint dir) {
      if ((keyA > keyB) == dir) { uint t = keyA; keyA = keyB; keyB = t; ... }
    }
    ...
    Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], ddd);

Its accesses name no memory but the words its reference parameters are bound to. A call therefore
reads (and may write) exactly the words of its reference arguments, and nothing else: to the kernel's
interval analysis (intervals.py) the call is those accesses, at the call, each an access of its
argument's array with the argument's index (`s_key[pos + stride]`), instead of a write of every shared
array. Where the analysis proves each such argument's word apart from every other thread's access in
the interval (apart.py, a quiet read, an own word), the function's accesses through the references
race with nothing in that call, in launches where those proofs' conditions hold and the arguments lie
inside their arrays.

The function gets one more parameter, `bool __hirace_quiet = false`, and its accesses through the
references take it (`rd_ctx(&(keyA), 7u, __hirace_quiet)`: no check where it is true, the whole check
otherwise); a proved call passes the conditions, tested where it runs (`Comparator(..., ddd, (blockDim.z ==
1 && ::hirace::in_declared(&(s_key[pos + 0]), s_key, sizeof(s_key)) && ...))`); every other call (another
kernel's, a device function's, one whose arguments are not all proved) passes nothing and is checked whole.
A kernel whose every call of the function is proved may have a quiet version (quiet_version.py): the proofs'
conditions join its launch test, its calls pass `true`, and each argument into a shared array has its bounds
tested at the call instead (`q::rmw_apart`, the site of the function's first access through that parameter):
one outside is noted in the thread's journal and diverted, as the version's own sites are.

A function takes part (`context_functions`) where the program defines it once, as a plain `__device__`
function (no template, no member, no earlier declaration), it has a reference parameter to an integer or
floating-point value, every access in its body names such a parameter alone (`keyA`, never `(&keyA)[1]`,
nor its address), it holds no atomic, barrier, memcpy, inline assembly, lambda, `new` or call of anything
that may write memory or synchronise, and the program names it nowhere but as a call's callee. A call
takes part where it passes every parameter (a default argument would take the condition's place) and
each reference argument is a subscript of a declared (or the kernel's one extern) shared array, with no
call, assignment or increment in it (the condition evaluates it once more), or a local variable.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from clang import cindex

from instrument.frontend.parse import Span
from instrument.frontend.query import DESTROYED, Function, Program
from .own_index import _bare, address_taken

CK = cindex.CursorKind
TK = cindex.TypeKind

QUIET_PARAM = "__hirace_quiet"
_VALUES = {TK.INT, TK.UINT, TK.LONG, TK.ULONG, TK.LONGLONG, TK.ULONGLONG, TK.SHORT, TK.USHORT, TK.CHAR_S,
           TK.SCHAR, TK.UCHAR, TK.CHAR_U, TK.BOOL, TK.FLOAT, TK.DOUBLE}
_PLAIN = re.compile(r"[\w\s.\[\]+\-*/%&|^<>()]+")


@dataclass
class ContextFunction:
    """A device function whose accesses through its reference parameters are quiet where a call says so."""
    fn: Function
    params: tuple[str, ...]                 # every parameter, in order
    refs: dict[int, str]                    # reference parameter position -> 'read' or 'rmw'
    insert_at: int                          # the offset after its last parameter (where QUIET_PARAM goes)
    sites: set[tuple[str, int, int]] = field(default_factory=set)   # its accesses, (file, start, end)


def _inside(span: Span, outer: Span) -> bool:
    return span.file == outer.file and outer.start <= span.start and span.end <= outer.end


def context_functions(prog: Program, facts) -> dict[str, ContextFunction]:
    """The program's functions that take part, by name (see the module); `facts` is the unit's
    intervals.KernelFacts (what a call may do)."""
    out = {}
    for f in prog.definitions:
        got = extendable(prog, f) if f.name in prog.functions else None
        if got is None:
            continue
        cur, parms, insert_at = got
        refs = {i: "read" for i, c in enumerate(parms) if c.type.kind == TK.LVALUEREFERENCE
                and c.type.get_pointee().get_canonical().kind in _VALUES}
        if not refs or any(c.type.get_canonical().kind in (TK.RVALUEREFERENCE,) for c in parms):
            continue
        names = {parms[i].spelling: i for i in refs}
        body_text = prog.unit.source(f.body.file).text(f.body.start, f.body.end)
        if any(address_taken(n, body_text) for n in names):
            continue
        mine = [a for a in prog.accesses if _inside(a.span, f.body)]
        if not mine or any(a.base not in names or re.sub(r"\s+", "", a.text) != a.base for a in mine):
            continue
        if any(_inside(x.span, f.body) for x in [*prog.atomics, *prog.barriers, *prog.ranges]) or \
                any(_inside(sp, f.body) for sp in prog.nested_bodies):
            continue
        if not _harmless(cur, facts):
            continue
        for a in mine:
            if a.kind != "read":
                refs[names[a.base]] = "rmw"
        out[f.name] = ContextFunction(f, tuple(f.params), refs, insert_at,
                                      {(a.span.file, a.span.start, a.span.end) for a in mine})
    return out


def extendable(prog: Program, f: Function) -> tuple[cindex.Cursor, list, int] | None:
    """(its cursor, its parameters, the offset after its last parameter) for a function the planner may give
    parameters after its last one: defined once, as a plain `__device__` function (no template, no member, no
    earlier declaration) with parameters, named nowhere but as a call's callee (its type changes), its parameter
    list closing right after its last parameter (comments aside); else None."""
    if f.kind != "device" or sum(1 for g in prog.definitions if g.name == f.name) != 1 or \
            not re.fullmatch(r"\w+", f.name):
        return None
    cur = prog.cursors.get((f.body.file, f.body.start))
    if cur is None or cur.kind != CK.FUNCTION_DECL or cur.canonical is None or \
            (cur.canonical.location.file is None or cur.canonical.location.offset != cur.location.offset or
             cur.canonical.location.file.name != cur.location.file.name):
        return None
    parms = [c for c in cur.get_children() if c.kind == CK.PARM_DECL]
    if not parms or [c.spelling for c in parms] != list(f.params):
        return None
    last = parms[-1].extent.end
    if last.file is None or last.file.name != f.body.file:
        return None
    between = prog.unit.source(f.body.file).text(last.offset, f.body.start)
    if not re.match(r"\s*(?://[^\n]*\n\s*|/\*.*?\*/\s*)*\)", between, re.S):   # (comments before the `)`)
        return None
    return (cur, parms, last.offset) if only_called(prog, f.name) else None


def only_called(prog: Program, name: str) -> bool:
    """Do the program's files name function `name` only as a call's callee (never its address, say)?"""
    texts = prog.__dict__.setdefault("_code_texts", None)
    if texts is None:
        texts = prog.__dict__["_code_texts"] = [_code(prog, p) for p in sorted(prog.unit.user_files)]
    named = re.compile(rb"\b" + name.encode() + rb"\b(?!\s*\()")
    return not any(named.search(t) for t in texts)


def _code(prog: Program, path: str) -> bytes:
    """A user file's bytes without its comments (a comment that names the function is no use of it)."""
    try:
        data = prog.unit.source(path).data if path in prog.unit.files else open(path, "rb").read()
    except OSError:
        return b""
    return re.sub(rb"//[^\n]*|/\*.*?\*/", b" ", data, flags=re.S)


def _harmless(cur: cindex.Cursor, facts) -> bool:
    """Does the function's body call nothing that may touch memory or synchronise, hold no inline assembly,
    `new`, or object whose destructor may?"""
    for c in cur.walk_preorder():
        if c.kind == CK.CALL_EXPR and any(facts._callee_effects(c)):
            return False
        if c.kind in (CK.ASM_STMT, CK.CXX_NEW_EXPR):
            return False
        if c.kind in DESTROYED and any(facts.destroyed_effects(c)):
            return False
    return True


@dataclass(frozen=True)
class ArgAccess:
    """A reference argument of a call of a context function, taken as an access at the call: `kind` read or
    rmw, `array` the shared array it names (None: a local variable), `sub` its subscript expression."""
    span: Span
    kind: str
    array: str | None
    sub: cindex.Cursor | None
    text: str
    param: str = ""   # the reference parameter it is bound to


@dataclass
class ContextCall:
    """A call of a context function whose reference arguments' words are all proved (intervals.py):
    `close` the offset of its closing parenthesis, `conds` the C++ it passes (the proofs' conditions and
    the arguments' bounds tests), `launch` the proofs' conditions alone (a quiet version's host test),
    `args` its reference arguments, `sizes` the bytes of the array each names (C++; "" for a local)."""
    function: str
    close: int
    conds: list[str]
    launch: list
    args: list[ArgAccess]
    sizes: list[str]


def call_arguments(prog: Program, call: cindex.Cursor, cf: ContextFunction, shared: set[str],
                   locals_ok) -> list[ArgAccess] | None:
    """The reference arguments of `call` as accesses, or None where the call does not take part (see the
    module). `shared`: the kernel's shared arrays by name (declared, or its one extern); `locals_ok(c)`:
    whether a name is a local variable of the kernel's own."""
    args = list(call.get_arguments())
    where = prog.unit.span_of(call)
    if len(args) != len(cf.params) or where is None:
        return None
    for a in args:   # (libclang gives a default argument too, written at the declaration)
        sp = prog.unit.span_of(a)
        if sp is None or not _inside(sp, where):
            return None
        # (the condition evaluates the reference arguments once more, in any order with the others: no argument
        # may change what they name)
        if re.search(r"\+\+|--|(?<![=!<>])=(?!=)", prog.unit.source(sp.file).text(sp.start, sp.end)):
            return None
    out = []
    for i, kind in sorted(cf.refs.items()):
        a = _bare(args[i])
        sp = prog.unit.span_of(a)
        if sp is None:
            return None
        text = prog.unit.source(sp.file).text(sp.start, sp.end)
        if a.kind == CK.DECL_REF_EXPR and a.referenced is not None and locals_ok(a.referenced):
            out.append(ArgAccess(sp, kind, None, None, text, cf.params[i]))
            continue
        base = a
        while base.kind == CK.ARRAY_SUBSCRIPT_EXPR:
            kids = list(base.get_children())
            if len(kids) != 2:
                return None
            base = _bare(kids[0])
        if a.kind != CK.ARRAY_SUBSCRIPT_EXPR or base.kind != CK.DECL_REF_EXPR or base.spelling not in shared:
            return None
        if not _PLAIN.fullmatch(text) or re.search(r"\w\s*\(|\+\+|--|[^=!<>]=[^=]", text):
            return None   # (evaluated once more by the condition: nothing in it may change anything)
        sub, ok = a, True
        while sub.kind == CK.ARRAY_SUBSCRIPT_EXPR and ok:   # (nor read memory: `s[in[i] & 63]` reads in[i] unchecked)
            arr, idx = list(sub.get_children())
            ok = _reads_nothing(idx, locals_ok)
            sub = _bare(arr)
        if not ok:
            return None
        out.append(ArgAccess(sp, kind, base.spelling, a, text, cf.params[i]))
    return out


def _reads_nothing(c: cindex.Cursor, locals_ok) -> bool:
    """Is index expression c made of literals, the thread's coordinates and the block's extents, integer
    parameters and the kernel's own locals, through operators that read no memory (no call, subscript,
    dereference, nor a shared or `__device__` variable)?"""
    for k in c.walk_preorder():
        if k.kind in (CK.CALL_EXPR, CK.ARRAY_SUBSCRIPT_EXPR, CK.MEMBER_REF_EXPR) and k.kind != CK.MEMBER_REF_EXPR:
            return False
        if k.kind == CK.MEMBER_REF_EXPR:
            toks = "".join(t.spelling for t in k.get_tokens())
            if not re.fullmatch(r"(threadIdx|blockIdx|blockDim|gridDim)\.[xyz]", toks):
                return False
        elif k.kind == CK.UNARY_OPERATOR:
            toks = [t.spelling for t in k.get_tokens()]
            if toks[:1] in (["*"], ["&"]):
                return False
        elif k.kind == CK.DECL_REF_EXPR:
            ref = k.referenced
            if ref is None:
                return False
            if ref.kind in (CK.ENUM_CONSTANT_DECL, CK.TEMPLATE_NON_TYPE_PARAMETER):
                continue
            if ref.kind == CK.PARM_DECL and ref.type.get_canonical().kind not in (TK.POINTER, TK.LVALUEREFERENCE):
                continue
            if ref.kind == CK.VAR_DECL and (locals_ok(ref) or ref.type.get_canonical().kind == TK.RECORD and
                                            ref.spelling in ("threadIdx", "blockIdx", "blockDim", "gridDim")):
                continue
            return False
    return True
