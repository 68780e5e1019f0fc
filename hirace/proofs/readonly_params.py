"""Kernel parameters whose accesses cannot race in a launch, given what the launch passes.

A read of global memory races only with a write to the same buffer in the same launch. When a
kernel writes nowhere but through some of its pointer parameters (no store through another
pointer, no `__device__` variable, no device function that writes), a read `p[i]` through a
parameter `p` it never writes through, nor changes, races with nothing in a launch whose written
parameters point into other buffers than p's (a read-only parameter).

A parameter whose every access is `p[E]` with one index E that gives each thread its own element
(own_index.py: `out[blockIdx.x * blockDim.x + threadIdx.x]`) races with nothing either, in a
launch where no other pointer argument points into p's buffer and E differs between threads: for
that, the kernel must also read nowhere but through its pointer parameters, and name p nowhere else
(an own parameter). Writes at several indices that differ only by whole multiples of one step
(`p[E]` and `p[E + half]`: own_index.stepped) are one index over the multiples, a coordinate more.
The kernel may also read p at other indices F (each a form of own_index.py),
where no element F names is one E names, for any two threads of the launch (runtime forms_apart:
lud's internal blocks read the row above and the column left of the blocks they write). A store through a pointer loaded from memory (`nodes[i].next[j] = v`) is not a
store through a parameter.

A read-only candidate read only at indices that an own parameter writes (elements of one size, after the same moves:
sortingNetworks' in-place merges, `bitonicMergeShared<<<...>>>(d_DstKey, ..., d_DstKey, ...)`, read
`d_SrcKey[0]` and write `d_DstKey[0]`, both moved by `blockIdx.x * SIZE + threadIdx.x`) may be passed
the own parameter's very pointer: each thread then reads only its own elements, which no other thread
writes. Such a pair (`KernelParams.pairs`) keeps both quiet in a launch that passes them one pointer
and no other argument into their buffer (hirace/host_quiet.h take_quiet_args).

A parameter reached only by device-scope atomics (`atomicAdd(out, v)`, `atomicMax(&best[i], v)`),
and named nowhere else, races with nothing either, in a launch where no other pointer argument
points into its buffer (atomics never race with atomics; the kernel reads nowhere but through its
pointer parameters, as for own parameters): an atomic parameter.

Which buffers the arguments point into is known only at the launch: the planner passes the argument
values there (hirace/host_quiet.h `quiet_params`), and the host tells the kernel which of these
parameters are quiet in this launch (one bit each, read-only parameters first).

`readonly_params(prog)` gives, per kernel, the read-only candidates, the own candidates with their
index forms, the parameters the kernel writes through and all its pointer parameters, by position;
a kernel that writes anywhere else has none.

The same facts say which buffers a launch may write at all: those its written arguments point into,
for a kernel that writes nowhere else (`writes`, also where it has no candidates). No access of the
launch races in any other buffer, so those need no check state in that launch
(hirace/host_buffer_state.h): the launch passes its written arguments (`quiet_params`, with no
candidates where it has none). Where the kernel moves a written parameter (`p += off`, convolutionSeparable's
`d_Dst += baseY * pitch + baseX`), a move may carry it into another buffer: its accesses are then bounded by
the buffer the launch's argument points into (the planner copies the argument at the kernel's entry:
`KernelWrites.moved`), and one that lands outside it is reported and diverted, never made. A call
writes nowhere only where every function the program defines by its name does (intervals.py
`_defined`: two namespaces' functions of one name, a constructor), and `new` writes where it constructs; a call
of a function that reaches memory only through pointer parameters the call binds to the kernel's shared memory
(shared_calls.py: a histogram's `addWord(s_WarpHist, data)`) writes no buffer of the launch's.
"""
from __future__ import annotations

from dataclasses import dataclass

from clang import cindex

import re

from .intervals import KernelFacts, _inside, _number, assignments
from .shared_calls import shared_call, shared_locals
from .own_index import LinearForm, Scope, _bare, address_taken, direct, along_loop, linear_form, stepped, summed
from instrument.protocol import QUIET_PARAMS
from instrument.frontend.query import DESTROYED, Function, Program, destroyed_by

CK = cindex.CursorKind
TK = cindex.TypeKind

MAX_CANDIDATES = QUIET_PARAMS   # (a bit each in the launch's quiet mask: records.h kQuietParams)


@dataclass(frozen=True)
class OwnParam:
    position: int
    form: LinearForm              # the index of every write through it (and of its reads, but those in `apart`)
    apart: tuple[LinearForm, ...] = ()   # the other indices it is read at: each must meet no element of `form`
    keys: frozenset = frozenset()   # the written indices' keys (LinearForm.key), before `stepped` made them one


@dataclass(frozen=True)
class KernelParams:
    kernel: Function
    candidates: tuple[int, ...]   # parameter positions whose reads may be quiet, in bit order
    written: tuple[int, ...]      # parameter positions the kernel writes through
    own: tuple[OwnParam, ...] = ()    # own candidates; their bits follow the read-only ones'
    pointers: tuple[int, ...] = ()    # every pointer parameter (given where there are own or atomic candidates)
    atomic: tuple[int, ...] = ()      # atomic candidates; their bits follow the own ones'
    pairs: tuple[tuple[int, int], ...] = ()   # (read-only bit, own bit) that may share one pointer (`_own`)
    aliases: tuple[tuple[str, str], ...] = ()   # (local pointer, the parameter it moves: `aliases`)

    @property
    def bits(self) -> tuple[int, ...]:
        """Parameter positions in bit order: read-only candidates, then own, then atomic candidates."""
        return self.candidates + tuple(o.position for o in self.own) + self.atomic

    @property
    def own_mask(self) -> int:
        """The bits of the own and atomic candidates (quiet where no other pointer argument points
        into their buffer: hirace/host_quiet.h take_quiet_args)."""
        return sum(1 << b for b in range(len(self.candidates), len(self.bits)))


@dataclass(frozen=True)
class KernelWrites:
    """A kernel that writes global memory nowhere but through its pointer parameters at `written`
    (positions): a launch of it writes no buffer but those its arguments there point into."""
    kernel: Function
    written: tuple[int, ...]
    moved: tuple[str, ...] = ()   # written parameters it moves by numbers (`p += off`): bounded where the launch pointed
    aliases: tuple[tuple[str, str], ...] = ()   # (local pointer, the moved written parameter it is made from), bounded so


class NoParams(Exception):
    """A kernel none of whose parameters can be quiet (the message says why)."""


def member_or_element(a) -> bool:
    """An access through a pointer parameter's own buffer: `p[i]` (bounded by the buffer `p` points into),
    or a member of an element (`p[i].f`, `p->f`: located at run time), never through a pointer loaded
    from there. A read-only parameter's quiet read tests either against its buffer's bounds."""
    return a.bound == "pointer" or (a.space == "pointer" and a.bound == "" and direct(a.text, a.base))


def redeclared(cur, parms) -> set[str]:
    """The parameters' names that the body declares again (an inner local, a lambda's parameter): an
    access through such a name may be through the other variable, so it is not the parameter's."""
    names = {c.spelling for c in parms}
    return {c.spelling for c in cur.walk_preorder()
            if c.kind in (CK.VAR_DECL, CK.PARM_DECL) and c.spelling in names and c not in parms}


def parameters(an: KernelFacts, k: Function):
    """Kernel k's cursor and its parameters' declarations, as its declaration names them (NoParams: libclang
    gives otherwise)."""
    cur = an.cursors.get((k.body.file, k.body.start))
    if cur is None:
        raise NoParams("libclang gives no body for it")
    parms = [c for c in cur.get_children() if c.kind == CK.PARM_DECL]
    if [c.spelling for c in parms] != list(k.params):
        raise NoParams("libclang gives its parameters otherwise than its declaration names them")
    return cur, parms


def _kernel(an: KernelFacts, k: Function, known: dict | None = None) -> KernelParams:
    """The kernel's quiet parameter candidates (NoParams: it has none, and why); `known` is given its
    written parameters where it writes nowhere else (even where it has no candidates)."""
    p = an.p
    body = k.body
    cur, parms = parameters(an, k)
    again = sorted(redeclared(cur, parms))
    if again:   # (`{ int *p = q; p[i] = v; }` writes q's buffer: not a write through the parameter p)
        raise NoParams(f"it declares the name of its parameter {again[0]} again")
    # a parameter the kernel changes (`p = ...`, `p += q - p`) no longer names the launch's buffer; one
    # it moves by numbers (`p += n`) still points into it (KernelFacts.rebased)
    rebased = an.rebased(k)
    changed = an.changed(body) - set(rebased)
    index = {name: i for i, name in enumerate(k.params)}
    shared_ptrs = an.shared_pointers(k)   # local pointers into shared memory (SharedMemory<T>())
    moved_shared = shared_locals(an, k)   # ... and those made by moving one (`s + n`: shared_calls.py)
    into_shared = lambda a: a.base in shared_ptrs or (a.base in moved_shared and direct(a.text, a.base))  # noqa: E731
    made = aliases(an, cur, parms, changed | set(rebased))   # local pointers a parameter moved by a number
    owner = lambda base: made[base].param if base in made else base  # noqa: E731
    inside = [a for a in p.accesses if _inside(a.span, body)]
    written: set[int] = set()
    for a in inside:
        if a.kind == "read":
            continue
        if a.space == "global":          # a __device__ variable: a parameter may point to it
            raise NoParams(f"it writes a __device__ variable ({a.span.where()})")
        if a.space == "shared" or (a.space == "pointer" and into_shared(a)):
            continue
        if a.space == "constant" or owner(a.base) not in index or owner(a.base) in changed or \
                not direct(a.text, a.base):
            raise NoParams(f"it writes through a pointer it made or loaded ({a.text} at {a.span.where()})")
        written.add(index[owner(a.base)])
    for at in p.atomics:
        if not _inside(at.span, body):
            continue
        base = owner(an.atomic_base(at))
        if any(d.name == base for d in p.shared) or base in shared_ptrs or base in moved_shared:
            continue
        if base not in index or base in changed:
            raise NoParams(f"an atomic on memory other than through its parameters ({at.span.where()})")
        written.add(index[base])
    reads_elsewhere = False              # a read that may reach a parameter's buffer by another way
    for c in cur.walk_preorder():
        if c.kind == CK.CALL_EXPR and an._context_call(c, body) is not None:
            continue   # (it touches its reference arguments' words alone: the kernel's locals or shared words)
        if c.kind == CK.CALL_EXPR and shared_call(an, k, c):
            continue   # (it touches the kernel's shared memory alone, through the pointers it passes: shared_calls.py)
        if c.kind == CK.CALL_EXPR:
            syncs, writes, reads = an._callee_effects(c)
            if syncs or writes:          # a callee that writes (or synchronises): not followed
                raise NoParams(f"it calls {c.spelling or 'a function'}, which may write memory or synchronise")
            reads_elsewhere |= reads
        if c.kind == CK.ASM_STMT:
            raise NoParams("it holds inline assembly")
        if c.kind == CK.CXX_NEW_EXPR:   # (`new (&out[i]) T(v)` writes where it points, through no access)
            raise NoParams("it constructs an object with new")
        if c.kind in DESTROYED:   # (a destructor runs where no call shows: `~D() { q[0] = 1; }`)
            syncs, writes, reads = an.destroyed_effects(c)
            if syncs or writes:
                raise NoParams(f"an object it makes is destroyed by {destroyed_by(c)[0]}, which may write memory "
                               f"or synchronise")
            reads_elsewhere |= reads
    if any(_inside(sp, body) for sp in p.nested_bodies):
        raise NoParams("it holds a lambda or a local class")
    # its writes are known (a launch's state, hirace/host_buffer_state.h), but where it moves a written
    # parameter (`p += n`): the move may carry it into another buffer, which its accesses' bounds, taken
    # from where it points then, do not catch
    # (the planner bounds their accesses by the buffers the launch's arguments point into, copied at the
    # kernel's entry, or forgets these writes where it cannot: planner._launch_bases)
    # (a local pointer made from a written parameter moves it too: `float *d_Dst = d_Output + base;`)
    moved = sorted(k.params[i] for i in written if k.params[i] in rebased or
                   any(m.param == k.params[i] for m in made.values()))
    # (only an access that names its pointer as its bound can be bounded by the launch's copy: `*p = v` and
    # `atomicAdd(p, 1)` through a moved p carry no bound, and may land in any buffer)
    unbounded = sorted({a.base for a in inside if owner(a.base) in moved and not (a.bound == "pointer" and a.bound_base is not None)} |
                       {an.atomic_base(at) for at in p.atomics if _inside(at.span, body) and
                        owner(an.atomic_base(at)) in moved and not (at.bound == "pointer" and at.bound_base is not None)})
    if known is not None and not unbounded:
        known[(body.file, body.start)] = KernelWrites(k, tuple(sorted(written)), tuple(moved),
                                                      tuple(sorted((q, m.param) for q, m in made.items() if m.param in moved)))
    elif known is not None:
        an.note(k.name, f"its launches check every buffer: it moves {unbounded[0]}, which it writes through, and an "
                        f"access through it that names no bound may land in another buffer")
    read_through = {owner(a.base) for a in inside if a.kind == "read" and owner(a.base) in index and member_or_element(a)}
    candidates = [i for i, c in enumerate(parms) if c.spelling in read_through and i not in written
                  and c.spelling not in changed and c.type.get_canonical().kind == TK.POINTER]
    candidates = candidates[:MAX_CANDIDATES]
    constant_ptrs = an.constant_pointers(k)   # (local pointers into __constant__ memory: no parameter's buffer)
    reads_elsewhere |= any(a.space == "global" or (a.space == "pointer" and not into_shared(a) and not (
        a.kind == "read" and a.base in constant_ptrs and direct(a.text, a.base)) and (
        owner(a.base) not in index or owner(a.base) in changed or not direct(a.text, a.base))) for a in inside)
    pairs: list[tuple[int, int]] = []
    own = [] if reads_elsewhere else _own(an, k, cur, parms, sorted(written), inside, changed, rebased, candidates,
                                          pairs, made)
    own = own[:MAX_CANDIDATES - len(candidates)]
    atomic = [] if reads_elsewhere else _atomic(an, k, parms, sorted(written), inside, changed, made)
    atomic = atomic[:MAX_CANDIDATES - len(candidates) - len(own)]
    if not candidates and not own and not atomic:
        raise NoParams("no parameter is only read, only its threads' own elements, or only atomics")
    pointers = tuple(i for i, c in enumerate(parms) if c.type.get_canonical().kind == TK.POINTER)
    bit = {p: b for b, p in enumerate([*candidates, *(o.position for o in own)])}
    form_of = {o.position: (o.form.key(), tuple(f.key() for f in o.apart)) for o in own}
    # (a reader's partners must share one own index, one own variable: its reads test that one, whichever the
    # launch passes its pointer)
    pairs = [(bit[r], bit[o]) for r, o in pairs if r in bit and o in bit and
             len({form_of[o2] for r2, o2 in pairs if r2 == r and o2 in form_of}) == 1]
    return KernelParams(k, tuple(candidates), tuple(sorted(written)), tuple(own), pointers if own or atomic else (),
                        tuple(atomic), tuple(pairs), tuple(sorted((q, m.param) for q, m in made.items())))


@dataclass(frozen=True)
class Alias:
    """A local pointer made from a pointer parameter by numbers (`aliases`)."""
    param: str
    parts: tuple = ()   # the numbers added, each (sign, its cursor): `p + a - b` ((1, a), (-1, b)); none for `p`


def aliases(an: KernelFacts, cur, parms, changed: set[str]) -> dict[str, Alias]:
    """The kernel's local pointers that name a parameter's buffer moved by a number, by name: declared once
    as `T *q = p;`, `p + n`, `n + p`, `p - n` or `&p[n]` (p a pointer parameter the kernel never changes nor
    moves, not in `changed`; T p's element type, no cast), never changed, addressed or bound to a reference
    (fastWalshTransform's `float *d_Dst = d_Output + blockIdx.y * N;`; shfl_scan's `unsigned int *p = img +
    (threadIdx.y + step * 8) * width + tidx;` in a loop's body: each round's q holds that round's n, and every
    use of q lies in the scope of its one declaration, where nothing changes it). An access `q[i]` is one
    through p, at n + i (the number's form taken where it is written, as an index's where the access is): as
    p's, it is bounded by the buffer the launch's argument points into where p is written (KernelWrites.aliases)."""
    unit = an.p.unit
    body = [c for c in cur.get_children() if c.kind == CK.COMPOUND_STMT]
    if not body:
        return {}
    sp = unit.span_of(body[-1])
    if sp is None:
        return {}
    text = unit.source(sp.file).text(sp.start, sp.end)
    pointers = {c.spelling: c for c in parms if c.type.get_canonical().kind == TK.POINTER}
    declared: dict[str, int] = {}
    for c in cur.walk_preorder():
        if c.kind in (CK.VAR_DECL, CK.PARM_DECL):
            declared[c.spelling] = declared.get(c.spelling, 0) + 1
    element = lambda c: re.sub(r"\b(const|volatile)\b|\s+", "",  # noqa: E731
                               c.type.get_canonical().get_pointee().spelling)
    out = {}
    for st in cur.walk_preorder():
        for d in st.get_children() if st.kind == CK.DECL_STMT else ():
            name = d.spelling
            if d.kind != CK.VAR_DECL or d.type.get_canonical().kind != TK.POINTER or declared.get(name) != 1 or \
                    name in changed or address_taken(name, text):
                continue
            init = [x for x in d.get_children() if x.kind not in (CK.TYPE_REF, CK.NAMESPACE_REF, CK.TEMPLATE_REF)]
            got = _moved_parameter(unit, init[0]) if len(init) == 1 else None
            if got is None or got.param not in pointers or got.param in changed or \
                    element(d) != element(pointers[got.param]):
                continue
            out[name] = got
    return out


def _moved_parameter(unit, c: cindex.Cursor, depth: int = 0) -> Alias | None:
    """`p`, `p + n`, `n + p`, `p - n` or `&p[n]`, and these again of such a pointer (`img + row * width + tidx`):
    p a parameter, named as itself; parentheses allowed, no cast."""
    c = _bare(c)
    if depth > 16:
        return None
    if c.kind == CK.DECL_REF_EXPR:
        ref = c.referenced
        return Alias(ref.spelling) if ref is not None and ref.kind == CK.PARM_DECL else None
    raw = list(c.get_children())
    kids = [_bare(x) for x in raw]
    if c.kind == CK.BINARY_OPERATOR and len(kids) == 2:
        sa, sb = unit.span_of(raw[0]), unit.span_of(raw[1])   # (the operator between them, parentheses outside)
        if sa is None or sb is None:
            return None
        op = unit.source(sa.file).text(sa.end, sb.start).strip()
        ptr = [i for i, x in enumerate(kids) if x.type.get_canonical().kind == TK.POINTER]
        if op not in ("+", "-") or len(ptr) != 1 or (op == "-" and ptr != [0]):
            return None
        base = _moved_parameter(unit, kids[ptr[0]], depth + 1)
        if base is None or not _number(kids[1 - ptr[0]]):
            return None   # (`p + (q - p)` points where q does)
        return Alias(base.param, base.parts + ((-1 if op == "-" else 1, kids[1 - ptr[0]]),))
    if c.kind == CK.UNARY_OPERATOR and len(kids) == 1 and [t.spelling for t in c.get_tokens()][:1] == ["&"] and \
            kids[0].kind == CK.ARRAY_SUBSCRIPT_EXPR:
        parts = [_bare(x) for x in kids[0].get_children()]
        base = _moved_parameter(unit, parts[0], depth + 1) if len(parts) == 2 else None
        return None if base is None or not _number(parts[1]) else Alias(base.param, base.parts + ((1, parts[1]),))
    return None


def _atomic(an: KernelFacts, k: Function, parms, written: list[int], inside, changed,
            made: dict | None = None) -> list[int]:
    """The written parameters reached only by device-scope atomics on addresses they give (`p`,
    `&p[E]`), and named nowhere else (no local pointer is made from them: `made`)."""
    unit = an.p.unit
    text = unit.source(k.body.file).text(k.body.start, k.body.end)
    found = []
    for i in written:
        name = parms[i].spelling
        if name in changed or parms[i].type.get_canonical().kind != TK.POINTER or any(a.base == name for a in inside) \
                or any(m.param == name for m in (made or {}).values()):
            continue
        mine = [at for at in an.p.atomics if _inside(at.span, k.body) and an.atomic_base(at) == name]
        if not mine or len(re.findall(rf"(?<![\w.>]){re.escape(name)}\b", text)) != len(mine):
            continue
        ok = True
        for at in mine:
            addr = re.sub(r"\s+", "", unit.source(at.address.file).text(at.address.start, at.address.end)) \
                if at.address else ""
            ok = ok and at.scope in ("device", "system") and (
                addr == name or (addr.startswith("&") and direct(addr[1:], name)))
        if ok:
            found.append(i)
    return found


def _own(an: KernelFacts, k: Function, cur, parms, written: list[int], inside, changed,
         rebased: dict | None = None, readers: list[int] = (),
         pairs: list | None = None, made: dict | None = None) -> list[OwnParam]:
    """The written parameters whose every access is `p[E]` with one index E of each thread's own
    element (and which the kernel names nowhere else). A parameter the kernel's top-level statements
    move by numbers before any access (`p += baseY * pitch + baseX;`) has those numbers added to its
    indices, and so has an access through a local pointer made from it (`made`: aliases). `pairs` is
    given (read-only position, own position) for each of `readers` (read-only candidates) read only at
    indices an own parameter writes, with elements of its size."""
    rebased = rebased or {}
    made = made or {}
    unit = an.p.unit
    text = unit.source(k.body.file).text(k.body.start, k.body.end)
    subscripts = {}
    for c in cur.walk_preorder():
        if c.kind == CK.ARRAY_SUBSCRIPT_EXPR:
            sp = unit.span_of(c)
            if sp is not None:
                subscripts[(sp.start, sp.end)] = c
    ops = assignments(an.p, k.body)
    aliased = frozenset(n for sp, n in an.p.aliased if _inside(sp, k.body))
    scope = Scope(unit, cur, text, changed, ops, aliased, loops=True)
    found = []
    for i in written:
        name = parms[i].spelling
        if name in changed or parms[i].type.get_canonical().kind != TK.POINTER:
            continue
        mine = [a for a in inside if a.base == name or a.base in made and made[a.base].param == name]
        forms = _forms(name, mine, text, scope, subscripts, rebased, made)
        if forms is None:
            continue
        written = {f.key(): f for a, f in zip(mine, forms) if a.kind != "read"}
        form = next(iter(written.values())) if len(written) == 1 else stepped(list(written.values()))
        if form is None:
            continue
        apart = {}
        for a, f in zip(mine, forms):
            if f.key() in written:
                continue
            merged = along_loop(form, f)   # (a read at other rounds of the written form's loop: one form)
            if merged is not None:
                form = merged
            else:
                apart.setdefault(f.key(), f)
        if form.fold and apart or any(f.fold for f in apart.values()):
            continue   # (forms_apart knows no butterfly)
        found.append(OwnParam(i, form, tuple(apart.values()), frozenset(written)))
    for r in readers if pairs is not None else ():
        name = parms[r].spelling
        mine = [a for a in inside if a.base == name or a.base in made and made[a.base].param == name]
        forms = _forms(name, mine, text, scope, subscripts, rebased, made)
        size = parms[r].type.get_canonical().get_pointee().get_size()
        for o in found if forms is not None else ():   # (one index names one element: of one size through both)
            if {f.key() for f in forms} <= o.keys and \
                    size > 0 and parms[o.position].type.get_canonical().get_pointee().get_size() == size:
                pairs.append((r, o.position))
    return found


def _forms(name: str, mine: list, text: str, scope: Scope, subscripts: dict, rebased: dict,
           made: dict | None = None) -> list | None:
    """The index forms of `mine`, a parameter's accesses, each `p[E]` (the numbers of the parameter's moves
    added: `p += baseY * pitch + baseX;` before its first access), or `q[E]` through a local pointer made
    from it (`made`: its number added), or None where one is not such, or the kernel names the parameter or
    such a pointer elsewhere (passed on, offset, atomics, its address taken)."""
    made = {q: m for q, m in (made or {}).items() if m.param == name}
    moves = rebased.get(name, [])
    direct_ = [a for a in mine if a.base == name]
    named = len(direct_) + len(made) + sum(2 if getattr(o, "amount", None) is not None else 1 for o in moves)   # (`p = p + n`: twice)
    if not mine or len(re.findall(rf"(?<![\w.>]){re.escape(name)}\b", text)) != named or any(
            len(re.findall(rf"(?<![\w.>]){re.escape(q)}\b", text)) != 1 + sum(a.base == q for a in mine) for q in made):
        return None
    start = _moved_by(scope, moves, min(a.span.start for a in mine)) if moves else []
    if start is None or moves and made:
        return None
    moved = {}   # a local pointer's numbers, as forms with their signs
    for q, m in made.items():
        moved[q] = [(sign, linear_form(c, scope)) for sign, c in m.parts]
        if any(f is None for _, f in moved[q]):
            return None
    forms = []
    for a in mine:
        c = subscripts.get((a.span.start, a.span.end))
        kids = list(c.get_children()) if c is not None else []
        if re.sub(r"\s+", "", a.text) == "*" + a.base:   # (`*q`: q[0]; its quiet form tests the launch's buffer)
            f = LinearForm(((),) * 6, ())
        elif a.bound != "pointer" or len(kids) != 2 or re.sub(r"\s+", "", a.text) != \
                re.sub(r"\s+", "", scope.text(kids[0])) + "[" + re.sub(r"\s+", "", scope.text(kids[1])) + "]":
            return None
        else:
            f = linear_form(kids[1], scope, folds=True)
        if f is not None and a.base in moved:
            f = summed([*moved[a.base], (1, f)])
        forms.append(f)
    if None in forms:
        return None
    if start:
        forms = [summed([*start, (1, f)]) for f in forms]
    return None if None in forms else forms


def _moved_by(scope: Scope, moves, first: int) -> list | None:
    """The forms (with signs) a parameter's moves add to its indices: each move a statement of the
    kernel's top level before its first access (`first`), or None."""
    at = {(st.extent.start.offset, st.extent.end.offset): st for st in scope.top}
    out = []
    for o in moves:
        st = at.get((o.span.start, o.span.end))
        if st is None or o.span.end > first:
            return None
        if o.op in ("++", "--"):
            out.append((1 if o.op == "++" else -1, LinearForm(((),) * 6, ((1, ("1",)),))))
            continue
        kids = list(st.get_children())
        amount = getattr(o, "amount", None) or (kids[1] if len(kids) == 2 else None)   # (`p = p + n`: n)
        f = linear_form(amount, scope) if amount is not None else None
        if f is None:
            return None
        out.append((1 if o.op == "+=" else -1, f))
    return out


def readonly_params(prog: Program, an: KernelFacts | None = None,
                    why: dict[str, str] | None = None,
                    writes: dict[tuple[str, int], KernelWrites] | None = None) -> dict[tuple[str, int], KernelParams]:
    """By kernel body (file, start): the kernels with read-only parameters whose reads may be quiet;
    `why` (kernel name -> reason) is told why each other kernel has none; `writes`, by kernel body, the
    kernels whose writes are known (KernelWrites), with candidates or not."""
    an = an or KernelFacts(prog)
    out = {}
    for k in prog.kernels:
        try:
            out[(k.body.file, k.body.start)] = _kernel(an, k, writes)
        except NoParams as e:
            reason = str(e)
        except (ValueError, AttributeError, KeyError, IndexError) as e:   # an unknown construct: none
            reason = f"the analysis does not know one of its constructs ({type(e).__name__}: {e})"
        else:
            continue
        if why is not None:
            why[k.name] = reason
    return out

