"""Lower what a host C++ compiler cannot parse, for the cpu backend.

Adds edits to a plan:
- `k<<<g, b, shm, s>>>(args)` becomes
  `::cudaemu::launcher("k", __FILE__, __LINE__, g, b, shm, s, k)(args)`: the
  arguments are evaluated once on the host and convert to the kernel's
  parameter types; every thread gets copies. A kernel template whose
  arguments deduce at the launch is passed as a generic lambda instead.
- `__shared__ T x[N];` inside a function becomes a reference to storage that
  all threads of the current block share; `extern __shared__ T x[];` becomes a
  pointer to the launch's dynamic shared memory.
- In a unit that names a kernel by its address for the runtime to launch (cudaLaunchKernel, a graph's
  kernel node), every kernel that is neither a template nor overloaded is registered after its
  definition: `static const bool cudaemu_kernel_k_12 = ::cudaemu::graphs::register_kernel(&k, "k");`
  (runtime/include/cudaemu/graphs.h runs it from its address and the parameters' addresses).
- A condition on `__CUDA_ARCH__` whose text is device code only (device_view.Condition, verdict
  "device") is read as the device pass of device_view.CPU_ARCH reads it: `__CUDA_ARCH__` becomes
  800 there, `defined(__CUDA_ARCH__)` 1, `#ifdef __CUDA_ARCH__` `#if 1`, `#ifndef` `#if 0` (the unit's
  other code keeps __CUDA_ARCH__ undefined, as the emulation's headers need); one that mixes host and
  device code is built as the host pass reads it, with a warning naming it.
Everything else (`__global__`, `__device__`, `__constant__` ...) is handled
by the emulation header, runtime/include/cudaemu/cudaemu.h.
"""
from __future__ import annotations

import re
from collections import Counter

from ..errors import UnsupportedConstruct
from .device_view import CPU_ARCH
from .parse import Span
from .query import Program
from .rewrite import EditPlan, one_line


def lower_for_cpu(prog: Program, plan: EditPlan) -> None:
    _lower_launches(prog, plan)
    _lower_shared(prog, plan)
    _register_kernels(prog, plan)
    _lower_arch_conditions(prog, plan)


_DEFINED_ARCH = re.compile(r"\bdefined\s*(?:\(\s*__CUDA_ARCH__\s*\)|__CUDA_ARCH__\b)")
_ARCH_NAME = re.compile(r"\b__CUDA_ARCH__\b")
_IFDEF = re.compile(r"^([ \t]*#[ \t]*)(ifdef|ifndef|elifdef|elifndef)([ \t]+)__CUDA_ARCH__\b")


def arch_directive(text: str) -> list[tuple[int, int, str]]:
    """The pieces of a directive naming __CUDA_ARCH__ to change, (start, end, new text) in `text`, for the
    directive to read as the device pass of CPU_ARCH reads it (none spans a line break)."""
    m = _IFDEF.match(text)
    if m:
        keyword = {"ifdef": "if 1", "ifndef": "if 0", "elifdef": "elif 1", "elifndef": "elif 0"}[m.group(2)]
        return [(m.start(2), m.end(), keyword)]
    out = [(d.start(), d.end(), "1") for d in _DEFINED_ARCH.finditer(text)]
    out += [(a.start(), a.end(), str(CPU_ARCH * 10)) for a in _ARCH_NAME.finditer(text)
            if not any(s <= a.start() < e for s, e, _ in out)]
    return sorted(out)


def _lower_arch_conditions(prog: Program, plan: EditPlan) -> None:
    src = prog.unit.source
    for cond in prog.arch_conditions:
        if cond.verdict == "device":
            for d in cond.directives:
                sf = src(d.file)
                for start, end, text in arch_directive(sf.data[d.start:d.end].decode("latin-1")):
                    at = Span(d.file, d.start + start, d.start + end, *sf.line_col(d.start + start))
                    plan.replace(at, text, f"cpu reading of __CUDA_ARCH__ at {d.where()}", allow_macro=True)
        elif cond.verdict == "mixed":
            plan.warnings.append(
                f"{cond.where()}: this condition on __CUDA_ARCH__ holds {cond.why}: the cpu backend builds it as "
                f"nvcc's host pass reads it, so device code that only the device pass compiles there does not run "
                f"(keep host and device code in separate conditions, or use --backend gpu)")


# the calls that launch a kernel named by its address (cudaemu/graphs.h finds it in its registry)
_BY_ADDRESS = re.compile(rb"\bcuda(?:LaunchKernel|LaunchCooperativeKernel|Graph\w*KernelNode\w*)\b")


def _register_kernels(prog: Program, plan: EditPlan) -> None:
    unit = prog.unit
    if not any(_BY_ADDRESS.search(unit.source(f).data) for f in unit.user_files):
        return
    names = Counter(k.name for k in prog.kernels)
    for k in prog.kernels:
        if k.is_template or names[k.name] > 1:
            continue   # (no single address to register: such a launch fails with a message)
        plan.insert(k.body, k.body.end, f' static const bool cudaemu_kernel_{k.name}_{k.body.line} = '
                                        f'::cudaemu::graphs::register_kernel(&{k.name}, "{k.name}");',
                    f"cpu registration of {k.name}")


def _lower_launches(prog: Program, plan: EditPlan) -> None:
    unit = prog.unit
    for ls in prog.launches:
        src = unit.source(ls.span.file)
        m = unit.macro_at(ls.config)
        if m is not None:
            raise UnsupportedConstruct(
                f"{ls.config.where()}: kernel launch inside an expansion of macro '{m.name}' "
                f"cannot be lowered for the cpu backend",
                hint="write the <<<...>>> launch outside the macro, or use --backend gpu")
        cfg = [one_line(src.text(a.start, a.end)) for a in ls.config_args]
        if len(cfg) < 2:
            raise UnsupportedConstruct(f"{ls.config.where()}: launch configuration needs at least "
                                       f"grid and block dimensions")
        callee = one_line(src.text(ls.callee.start, ls.callee.end))
        fn = prog.functions.get(ls.kernel)
        # a template whose arguments deduce, or a launch that leaves default arguments out, calls the
        # kernel through a generic lambda: the C++ call then deduces and fills in defaults
        short = fn is not None and len(ls.args) < len(fn.params)
        kernel = (f"[](auto... cudaemu_arg_) {{ {callee}(cudaemu_arg_...); }}"
                  if ls.deduced_template or short else f"{callee}")
        head_span = type(ls.span)(ls.span.file, ls.span.start, ls.config.end, ls.span.line, ls.span.col)
        plan.replace(head_span, launch_head(ls.kernel, cfg, kernel), f"cpu launch of {ls.kernel}", allow_macro=True)


def launch_head(name: str, cfg: list[str], kernel: str) -> str:
    """What `kernel<<<cfg>>>` becomes (the arguments' parenthesis follows): a launcher of the kernel
    `name` (as reports name it) with the launch's configuration, shared memory and stream 0 where
    `cfg` leaves them out."""
    cfg = list(cfg) + ["0"] * (4 - len(cfg))
    return (f'::cudaemu::launcher("{name}", __FILE__, __LINE__, ({cfg[0]}), ({cfg[1]}), '
            f'({cfg[2]}), ({cfg[3]}), {kernel})')


def _lower_shared(prog: Program, plan: EditPlan) -> None:
    for span, text, origin in shared_lowering(prog):
        plan.replace(span, text, origin, allow_macro=True)


def shared_lowering(prog: Program, function: str | None = None) -> list[tuple]:
    """(statement, its text for the host compiler, origin) for each statement of `__shared__`
    declarations (of `function` only, where given); UnsupportedConstruct where one cannot be lowered."""
    by_stmt: dict = {}
    out = []
    for sd in prog.shared:
        if function is not None and sd.function != function:
            continue
        if not sd.function or sd.stmt is None:
            raise UnsupportedConstruct(
                f"{sd.span.where()}: __shared__ variable '{sd.name}' at file scope is not "
                f"supported on the cpu backend", hint="declare it inside the kernel")
        m = prog.unit.macro_at(sd.stmt)
        if m is not None and not m.name.startswith("__"):
            raise UnsupportedConstruct(
                f"{sd.span.where()}: __shared__ declaration of '{sd.name}' inside an expansion of "
                f"macro '{m.name}' cannot be lowered for the cpu backend",
                hint="write the declaration outside the macro")
        by_stmt.setdefault(sd.stmt, []).append(sd)
    for stmt, decls in by_stmt.items():
        parts = []
        for sd in decls:
            key = f"cudaemu_shared_key_{sd.name}_{sd.span.line}_{sd.span.col}"
            if sd.is_extern:
                elem = sd.elem_type or sd.type
                parts.append(f"{elem} *{sd.name} = ::cudaemu::dynamic_shared<{elem}>();")
            else:
                parts.append(f"static char {key}; auto &{sd.name} = "
                             f"::cudaemu::block_shared<{sd.type}>(&{key});")
        out.append((stmt, " ".join(parts), f"cpu lowering of __shared__ {decls[0].name}"))
    return out
