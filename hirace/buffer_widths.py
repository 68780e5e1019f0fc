"""The narrowest access a launch may make through each pointer argument, for the shadow's
granularity per buffer (runtime/include/hirace/host_granularity.h).

A shadow word covers 1 << shift bytes of a buffer. It must be no wider than any access that touches
the buffer (else two threads' neighbouring bytes would look like one word), and it is worth being as
wide as that: an `int` buffer shadowed per byte makes each access four updates and its shadow four
times larger. So a buffer starts at 4-byte words, and before each launch the host makes the buffers it
may touch as fine as its narrowest accesses there, which this module finds per kernel:

- an access in the kernel's own body through one of its pointer parameters, `p[i]`, `p[i].f`, `p->f`
  (`readonly_params.member_or_element`: the parameter's own buffer, not a pointer loaded from it),
  where the kernel never points `p` elsewhere (it may move it by numbers: still the same buffer), counts
  for the buffer the launch's argument points into;
- every other access counts for every buffer (`other`): through a pointer the kernel made or loaded, a
  `__device__` variable, in a device function the kernel calls (directly or not), a device memcpy or
  memset (any byte); a kernel the analysis cannot read passes nothing (every buffer as fine as any access).

A device function counts for the kernels that call it by name, as the planner instruments what they
call (Program.device_reachable): one that a kernel reaches only through a function pointer is
instrumented only where another kernel calls it by name, and its accesses there are not counted for
the kernel that calls it through the pointer (hirace.toml's `granularity = 1` covers such a program).

Shared, constant and local memory have no buffer (their granularity is the program's narrowest,
HIRACE_GRANULARITY_SHIFT). An access's width is the largest power of two dividing its size, as for the
program's granularity (a 12-byte element: 4; a size a template argument decides: 1), and at most its
alignment (a member of a packed record, a 4-byte struct of chars at offset 1: width_of). The planner
passes the widths at each launch whose arguments it can evaluate once more (`buffer_widths(...)`); a launch
without them makes every buffer as fine as the program's narrowest access.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from clang import cindex

from .proofs.intervals import KernelFacts, _inside
from .proofs.readonly_params import NoParams, member_or_element, parameters, redeclared
from instrument.frontend.query import Function, Program
from instrument.frontend.rewrite import split_top_level

TK = cindex.TypeKind

BUFFER_SHIFT = 2          # a buffer's words when it is allocated: 4 bytes (HIRACE_BUFFER_SHIFT)
NO_SPACE = ("shared", "constant", "local")


def width_of(size: int, align: int = 0) -> int:
    """The widest word an access of `size` bytes at an address of alignment `align` (0: unknown) may
    share with no neighbour: the largest power of two dividing its size, at most its alignment (a
    4-byte struct of chars at offset 1 spans two 4-byte words); 1 where the size is unknown."""
    width = size & -size if size > 0 else 1
    return min(width, align) if align > 0 else width


def shift_of(size: int, align: int = 0) -> int:
    """log2 of the widest word an access of `size` bytes (alignment `align`, width_of) may share with no
    neighbour, at most 4 bytes."""
    return min(width_of(size, align), 1 << BUFFER_SHIFT).bit_length() - 1


@dataclass(frozen=True)
class KernelWidths:
    params: tuple[tuple[int, int], ...]   # (position, shift) of pointer parameters reached by narrower accesses
    other: int                            # the shift of the narrowest access made by any other way
    # positions of parameters of a template's type read or written as elements (`p[i]` of a `T *p`): their
    # width is the pointee's, which the launch's compiler knows (`pointee_shift`), else a byte
    pointee: tuple[int, ...] = ()
    templates: int = field(default=0, compare=False)   # the kernel template's parameters (0: no template)

    def kernel(self, callee: str, deduced: bool) -> str:
        """An expression naming the kernel that a launch whose callee is written `callee` runs, for
        pointee_shift: '' where it names no one function (a deduced template, `k<N>` of a template of two
        parameters inside a function template, whose second the launch deduces)."""
        if deduced:
            return ""
        if self.templates:
            written = callee[callee.find("<") + 1:callee.rfind(">")] if "<" in callee and ">" in callee else None
            if written is None or len(split_top_level(written)) < self.templates:
                return ""
        return f"({callee})"

    def text(self, args: list[str], kernel: str = "") -> str:
        """`::hirace::host::buffer_widths({arguments}, {shifts}, other), ` for argument texts `args`, and
        `kernel`, an expression naming the kernel the launch runs ('' where it has none: a deduced template)."""
        shifts = dict(self.params)
        named = sorted(set(shifts) | set(self.pointee))
        addr = ", ".join(f"::hirace::host::arg_address({args[i]})" for i in named)
        text = [f"::hirace::host::pointee_shift<{i}>({kernel}, {shifts.get(i, BUFFER_SHIFT)}u)"
                if i in self.pointee and kernel else f"{shifts.get(i, 0 if i in self.pointee else BUFFER_SHIFT)}u"
                for i in named]
        return f"::hirace::host::buffer_widths({{{addr}}}, {{{', '.join(text)}}}, {self.other}u), "


def _called(prog: Program, kernel: str) -> set[str]:
    """The device functions kernel `kernel` calls, directly or not (as Program.device_reachable)."""
    seen: set[str] = set()
    todo = [kernel]
    while todo:
        for callee in prog.calls.get(todo.pop(), ()):
            if callee in prog.functions and callee not in seen and callee != kernel:
                seen.add(callee)
                todo.append(callee)
    return seen


def _elsewhere(prog: Program, kernel: str, kernels: set[str]) -> int:
    """The narrowest access of the device functions kernel `kernel` calls and of any device memcpy or
    memset they or it make: each may touch any buffer (but one between the thread's own locals)."""
    called = _called(prog, kernel) - kernels
    shift = BUFFER_SHIFT
    for a in prog.accesses:
        if a.function in called and a.space not in NO_SPACE:
            shift = min(shift, shift_of(a.size, a.align))
    if any((r.function in called or r.function == kernel) and not r.local for r in prog.ranges):
        shift = 0
    return shift


def _kernel(an: KernelFacts, k: Function, elsewhere: int) -> KernelWidths | None:
    p = an.p
    try:
        cur, parms = parameters(an, k)
    except NoParams:
        return None
    pointer = {c.spelling: i for i, c in enumerate(parms) if c.type.get_canonical().kind == TK.POINTER}
    # a name the body declares again (a local in an inner block, a lambda's parameter) may name another
    # buffer where an access spells it: the parameter's accesses then count for every buffer
    for name in redeclared(cur, parms):
        pointer.pop(name, None)
    changed = an.changed(k.body) - set(an.rebased(k))
    shared_ptrs = an.shared_pointers(k)
    other = elsewhere
    params: dict[int, int] = {}
    pointee: set[int] = set()
    for a in p.accesses:
        if a.function != k.name or a.space in NO_SPACE:
            continue
        inside = _inside(a.span, k.body)   # (else written where a macro is defined: counted for every buffer)
        if inside and a.space == "pointer" and a.base in shared_ptrs:
            continue
        if inside and a.base in pointer and a.base not in changed and member_or_element(a):
            i = pointer[a.base]
            if a.size <= 0 and a.bound == "pointer":   # an element of a template's type: the launch's compiler knows it
                pointee.add(i)
            else:
                params[i] = min(params.get(i, BUFFER_SHIFT), shift_of(a.size, a.align))
        else:
            other = min(other, shift_of(a.size, a.align))
    limit = min(other, BUFFER_SHIFT)
    narrow = tuple(sorted((i, s) for i, s in params.items() if s < limit))
    # (a parameter read as a template's elements matters only while `other` leaves wider words)
    templates = sum(1 for c in cur.get_children() if c.kind in (
        cindex.CursorKind.TEMPLATE_TYPE_PARAMETER, cindex.CursorKind.TEMPLATE_NON_TYPE_PARAMETER,
        cindex.CursorKind.TEMPLATE_TEMPLATE_PARAMETER))
    return KernelWidths(narrow, other, tuple(sorted(pointee)) if limit > 0 else (), templates)


def kernel_widths(prog: Program, an: KernelFacts) -> dict[str, KernelWidths]:
    """By kernel name, the widths of the kernels the analysis reads (one kernel of that name)."""
    names = [k.name for k in prog.kernels]
    out = {}
    for k in prog.kernels:
        if names.count(k.name) != 1:
            continue
        try:
            w = _kernel(an, k, _elsewhere(prog, k.name, set(names)))
        except (ValueError, AttributeError, KeyError, IndexError):   # an unknown construct: none
            w = None
        if w is not None:
            out[k.name] = w
    return out
