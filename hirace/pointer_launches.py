"""Launches through a kernel pointer: `kernel<<<grid, block>>>(args)` where `kernel` is a variable the
program sets as it runs (transpose picks one of eight kernels from a table).

A launch of a named kernel gets, from the planner, its quiet parameters' argument values
(`quiet_params`) and, where the kernel has a quiet version, that version's host test and the choice
between the two kernels. A launch through a pointer cannot name them: the planner does not know
which kernel it runs. So each kernel that has quiet candidates or a version registers them by its
address, right after its definition (and its version's, where it has one):

    static const bool hirace_entry_K = ::hirace::host::kernel_entry(&K,
        +[](dim3 __hirace_block, dim3 __hirace_grid, float *o, int n) { quiet_params(...); quiet_version(...); },
        &K__hirace_q);

and a launch through a pointer variable becomes

    (::hirace::host::pointer_prepare(kernel, dim3(block), dim3(grid), args...), before_launch(...),
     (quiet_chosen() ? (void)(version_of(kernel)<<<...>>>(args...)) : (void)(kernel<<<...>>>(args...))), after_launch())

(runtime/include/hirace/host_kernel_pointers.h). The runtime finds the kernel's entry by the pointer's
value and type; a pointer to a kernel without one gets no quiet parameter and no version, as before.
The arguments are evaluated once more by the preparation, as for a named kernel's quiet parameters:
only plain ones (no call, assignment, increment, nor macro) let a launch take part.
"""
from __future__ import annotations

import re

from .proofs import quiet_version
from .proofs.quiet_version import Version
from instrument.frontend.lower_cpu import launch_head
from instrument.frontend.rewrite import split_top_level

_IDENT = re.compile(r"[A-Za-z_]\w*")
_NS = "::hirace::host::"


def entry_text(prog, k, quiet_params, version: Version | None, entered: bool = False) -> str | None:
    """The registration of kernel `k`: its name, what a launch of it prepares, its version (None where
    it cannot have one: a template, a kernel name the unit declares twice, an unnamed parameter,
    `__grid_constant__`). `quiet_params(args)`: the
    kernel's `quiet_params(...)` call for arguments `args` ('' where it has no quiet candidates); `entered`:
    it starts with block_entry, so a launch through a pointer to it may give it hirace's shared area."""
    if k.is_template or k.kind != "global" or sum(1 for x in prog.kernels if x.name == k.name) != 1:
        return None
    data = prog.unit.source(k.span.file).data
    header = data[k.span.start:k.body.start].decode("utf-8", "replace")
    params = quiet_version._param_list(header, k.name)
    if params is None or "__grid_constant__" in header:
        return None
    decls = split_top_level(header[params[0]:params[1]])
    if len(decls) != len(k.params) or any(not name or not re.search(r"\b" + re.escape(name) + r"\b", d)
                                          for name, d in zip(k.params, decls)):
        return None
    decls = [re.sub(r"\s*=[^=].*$", "", d, flags=re.S) for d in decls]   # (no default arguments)
    body = quiet_params(list(k.params)).rstrip().rstrip(",")
    if version is not None:
        test = (f"{k.name}{quiet_version.TEST_SUFFIX}(__hirace_block, __hirace_grid"
                f"{''.join(', ' + k.params[i] for i in version.test_params)})")
        body = (body + "; " if body else "") + f"{_NS}quiet_version({test}, {version.need}u)"
    unused = "".join(f" (void){name};" for name in ("__hirace_block", "__hirace_grid", *k.params))
    lam = (f"+[](dim3 __hirace_block, dim3 __hirace_grid{''.join(', ' + d for d in decls)}) {{{unused} "
           f"{body}; }}") if body else "nullptr"
    ver = f"&{version.name}" if version is not None else "nullptr"
    return (f'static const bool hirace_entry_{k.name} = {_NS}kernel_entry(&{k.name}, "{k.name}", {lam}, '
            f'{ver}{", true" if entered else ""});\n')


def is_pointer_launch(prog, ls) -> bool:
    """Whether launch `ls` names a variable, not a function the unit knows (`kernel<<<...>>>`)."""
    s = prog.unit.source(ls.span.file)
    callee = s.text(ls.callee.start, ls.callee.end).strip()
    return ls.through_pointer and bool(_IDENT.fullmatch(callee)) and callee == ls.kernel


def launch_texts(prog, ls, cfg: list[str], args: list[str], lower_cpu: bool) -> tuple[str, str, str]:
    """(before before_launch, before the launch's call, after it) for a launch through a pointer."""
    s = prog.unit.source(ls.span.file)
    callee = s.text(ls.callee.start, ls.callee.end).strip()
    prepare = f"{_NS}pointer_prepare({callee}, dim3({cfg[1]}), dim3({cfg[0]}){''.join(', ' + a for a in args)}), "
    version = f"{_NS}version_of({callee})"
    head = launch_head(ls.kernel, cfg, version) if lower_cpu else f"{version}<<<{', '.join(cfg)}>>>"
    choose = f"({_NS}quiet_chosen() ? (void)({head}({', '.join(args)})) : (void)("
    return prepare, choose, "))"
