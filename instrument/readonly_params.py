"""Kernel parameters a kernel only reads through.

A read of global memory races only with a write to the same buffer in the same launch. When a
kernel writes nowhere but through some of its pointer parameters (no store through another
pointer, no `__device__` variable, no device function that writes), a read `p[i]` through a
parameter `p` it never writes through, nor changes, races with nothing in a launch whose written
parameters point into other buffers than p's. Which buffers they point into is known only at the
launch: the planner passes the argument values there (hirace/host.h `quiet_params`), and the host
tells the kernel which of its read-only parameters are quiet in this launch.

`readonly_params(prog)` gives, per kernel, the parameters whose reads may be quiet (candidates)
and the parameters the kernel writes through, by position; a kernel that writes anywhere else has
none.
"""
from __future__ import annotations

from dataclasses import dataclass

from clang import cindex

from .intervals import KernelFacts, _inside
from .query import Function, Program

CK = cindex.CursorKind
TK = cindex.TypeKind

MAX_CANDIDATES = 8   # hirace/runtime.h kQuietParams


@dataclass(frozen=True)
class KernelParams:
    kernel: Function
    candidates: tuple[int, ...]   # parameter positions whose reads may be quiet, in bit order
    written: tuple[int, ...]      # parameter positions the kernel writes through


def _kernel(an: KernelFacts, k: Function) -> KernelParams | None:
    p = an.p
    body = k.body
    cur = an.cursors.get((body.file, body.start))
    if cur is None:
        return None
    parms = [c for c in cur.get_children() if c.kind == CK.PARM_DECL]
    if [c.spelling for c in parms] != list(k.params):
        return None
    # a parameter the kernel changes (`p = ...`, `p += 4`, `++p`) no longer names the launch's buffer
    changed = an.changed(body)
    index = {name: i for i, name in enumerate(k.params)}
    written: set[int] = set()
    for a in p.accesses:
        if not _inside(a.span, body) or a.kind == "read":
            continue
        if a.space == "global":
            return None                  # a __device__ variable: a parameter may point to it
        if a.space == "shared":
            continue
        if a.space == "constant" or a.base not in index or a.base in changed:
            return None                  # through a pointer the kernel made itself
        written.add(index[a.base])
    for at in p.atomics:
        if not _inside(at.span, body):
            continue
        base = an.atomic_base(at)
        if any(d.name == base for d in p.shared):
            continue
        if base not in index or base in changed:
            return None
        written.add(index[base])
    for c in cur.walk_preorder():
        if c.kind == CK.CALL_EXPR and any(an._callee_effects(c)[:2]):
            return None                  # a callee that writes (or synchronises): not followed
        if c.kind == CK.ASM_STMT:
            return None
    if any(_inside(sp, body) for sp in p.nested_bodies):
        return None
    read_through = {a.base for a in p.accesses if _inside(a.span, body) and a.kind == "read"
                    and a.bound == "pointer" and a.base in index}
    candidates = [i for i, c in enumerate(parms) if c.spelling in read_through and i not in written
                  and c.spelling not in changed and c.type.get_canonical().kind == TK.POINTER]
    if not candidates:
        return None
    return KernelParams(k, tuple(candidates[:MAX_CANDIDATES]), tuple(sorted(written)))


def readonly_params(prog: Program, an: KernelFacts | None = None) -> dict[tuple[str, int], KernelParams]:
    """By kernel body (file, start): the kernels with read-only parameters whose reads may be quiet."""
    an = an or KernelFacts(prog)
    out = {}
    for k in prog.kernels:
        try:
            got = _kernel(an, k)
        except (ValueError, AttributeError, KeyError, IndexError):   # an unknown construct: none
            got = None
        if got is not None:
            out[(k.body.file, k.body.start)] = got
    return out

