"""parse -> plan edits -> apply -> write -> build: the path every tool takes to an executable."""
from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..backends.base import Backend, BuildRequest
from . import build_cache, cpu_parts, register_budget
from ..errors import ParseError, UnsupportedConstruct
from ..frontend import device_view
from ..frontend.c_includes import user_headers
from ..frontend.deep import run_deep
from ..frontend.lower_cpu import lower_for_cpu
from ..output import write_tree
from ..frontend.parse import WAITING_OBJECTS, ParsedUnit, parse_file
from ..frontend.query import Program, query
from ..frontend.rewrite import EditPlan, apply
from runtime import include_dir

# A planner adds a tool's edits for one translation unit: planner(program, plan). A tool's planner
# may also have `defines()`: the -D values its runtime must be built with, known once every unit
# is planned (site counts, the shadow granularity); the builds add them (planned_defines). And
# `unplanned(path, data)`: told of each source built as it is (C).
Planner = Callable[[Program, EditPlan], None]


def planned_defines(planners) -> list[str]:
    return [d for p in planners if hasattr(p, "defines") for d in p.defines()]


@dataclass
class Instrumented:
    """What instrument_sources wrote: the new sources, the include dirs that find their headers
    (mirrored ones first), the queried programs, and the warnings of the parse and the planners."""
    sources: list[Path]
    include_dirs: list[Path]
    programs: list[Program]
    warnings: list[str]
    root: Path | None = None   # the directory out_dir mirrors


@dataclass
class BuiltProgram:
    exe: Path
    work_dir: Path
    programs: list[Program]
    warnings: list[str] = field(default_factory=list)
    cached: bool = False   # copied from the build cache: nothing was compiled (build_cache.py)
    cache_note: str = ""   # why a build asked to be cached was not kept


def instrument_sources(sources: list[Path], out_dir: Path, planners: list[Planner] = (),
                       include_dirs=(), defines=(), lower_cpu: bool = False, parse_extra=(),
                       as_cuda: bool = False, archs=()) -> Instrumented:
    """Parse every source, apply the planners (and the cpu lowering), and write every
    user file the sources include to out_dir, mirroring their layout (`parse_extra`: more
    arguments for the parser, parse.parse_args; `as_cuda`: every source is compiled as CUDA,
    whatever its suffix, as `nvcc -x cu` does; `archs`: the GPU architectures the build compiles
    for, 90 for sm_90: a unit with a condition on __CUDA_ARCH__ is also read as the first one's device
    pass reads it, frontend/device_view.py)."""
    reading = device_view.reading_arch(lower_cpu, archs)
    sources = [Path(s).resolve() for s in sources]
    incs = [Path(d).resolve() for d in include_dirs]
    roots = sorted({s.parent for s in sources} | set(incs))
    programs: list[Program] = []
    outputs: dict[str, bytes | tuple] = {}   # (the CUDA files: their bytes, edits and prelude until the end)
    main_preludes: dict[str, str | None] = {}
    warnings: list[str] = []
    edit_counts: dict[str, int] = {}
    c_sources = []
    for src in sources:
        if src.suffix == ".c":
            c_sources.append(src)
            # C sources hold no CUDA: they are built as they are (by the C compiler)
            outputs[str(src)] = src.read_bytes()
            edit_counts[str(src)] = 0
            for planner in planners:
                if hasattr(planner, "unplanned"):
                    planner.unplanned(src, outputs[str(src)])
            if b"cudaMalloc" in outputs[str(src)]:
                warnings.append(f"{src}: allocations in a C source are not tracked; races on those "
                                f"buffers are not checked")
            continue
        language = "cuda" if as_cuda else None
        unit, prog, plan = run_deep(lambda: _analyse(src, incs, defines, parse_extra, planners, lower_cpu, language, reading),
                                     src)
        warnings += unit.warnings + plan.warnings
        programs.append(prog)
        touched = set(unit.user_files)
        for path in sorted(touched):
            edits = [e for e in plan.edits if e.file == path]
            data = unit.source(path).data if path in unit.files else Path(path).read_bytes()
            # A header included by several sources is written once: keep the version
            # with the most edits (what one source reaches from its kernels, another
            # may not); site ids in either version name the same lines. A source that
            # other sources also include (`#include "util.cu"`) keeps its own unit's prelude.
            if path == unit.main:
                main_preludes[path] = plan.preludes.get(path)
            if path not in outputs or len(edits) > edit_counts[path]:
                outputs[path] = (data, edits, plan.preludes.get(path))
                edit_counts[path] = len(edits)
    for path, version in list(outputs.items()):
        if isinstance(version, tuple):
            data, edits, prelude = version
            outputs[path] = apply(data, edits, path, main_preludes.get(path, prelude), mark_origin=True)
    # the headers only C sources reach, as they are (after the CUDA sources: a header they share
    # keeps its instrumented version); libclang names included files as found ("dir/../x.h"):
    # compare resolved paths
    have = {Path(p).resolve() for p in outputs}
    for src in c_sources:
        for header in user_headers(src, incs):
            if header not in have:
                outputs[str(header)] = header.read_bytes()
                have.add(header)
    root = Path(os.path.commonpath([str(Path(p).resolve().parent) for p in outputs] +
                                   [str(r) for r in roots]))
    written = write_tree(out_dir, outputs, root)
    new_sources = [written[str(s)] for s in sources]
    # mirrored include dirs first; then the originals and the sources' own
    # directories, so that relative includes of unmirrored files still resolve
    mapped_incs = [Path(out_dir) / d.relative_to(root) for d in incs] + incs + \
        [s.parent for s in sources]
    return Instrumented(new_sources, mapped_incs, programs, warnings, root)


# libcu++'s synchronisation objects, which wait by spinning or sleeping the host thread when built
# for the host
_API_NAME = re.compile(r"\b(cuda[A-Z]\w*)\s*\(")


@functools.lru_cache(maxsize=1)
def declared_api() -> frozenset[str]:
    """The CUDA runtime functions the parser knows (runtime/include/cudaparse: cuda_decls.h and the
    headers it includes)."""
    return frozenset(n for h in sorted((include_dir() / "cudaparse").glob("*.h"))
                     for n in _API_NAME.findall(h.read_text()))


@functools.lru_cache(maxsize=1)
def emulated_api() -> frozenset[str]:
    """The CUDA runtime functions the cpu backend's emulation provides (runtime/include/cudaemu)."""
    return frozenset(n for h in sorted((include_dir() / "cudaemu").glob("*.h"))
                     for n in _API_NAME.findall(h.read_text()))


def refuse_unsupported(prog: Program, lower_cpu: bool) -> None:
    """Constructs that instrumentation (or the cpu backend) cannot handle stop the build by name,
    with the place they are written, instead of failing later with a compiler's message."""
    _refuse_special(prog, lower_cpu)
    if lower_cpu:
        _refuse_on_cpu(prog)


def _refuse_on_cpu(prog: Program) -> None:
    """What the cpu backend's emulation does not run: CUB and Thrust, libcu++'s waiting objects
    (libcu++ itself runs on the host as it is: cudaemu.h), runtime functions it does not emulate."""
    gpu_only = ("CUB", "Thrust")
    for library, name, span, fn in prog.library_uses:
        if library in gpu_only:
            kind = "kernel" if fn in {k.name for k in prog.kernels} else "function"
            raise UnsupportedConstruct(
                f"{span.where()}: {kind} {fn} uses {name}: {library} runs on a GPU only; the cpu backend "
                f"emulates the CUDA language and runtime, not the {library} library", hint="use --backend gpu")
        if name.split("::")[-1] in WAITING_OBJECTS:
            raise UnsupportedConstruct(
                f"{span.where()}: {fn} uses {name}, which waits as the host waits: the cpu backend runs a "
                f"block's threads as fibers of one thread, and one that waits so would never let the others "
                f"run", hint="use --backend gpu")
    for library, header, where in prog.unit.library_includes:
        if library in gpu_only:
            raise UnsupportedConstruct(
                f"{where}: includes <{header}>: {library} runs on a GPU only; the cpu backend emulates "
                f"the CUDA language and runtime, not the {library} library", hint="use --backend gpu")
    missing = sorted({(c.span.file, c.span.start, c.name, c.span.where()) for c in prog.api_calls
                      if c.name in declared_api() and c.name not in emulated_api()})
    if missing:
        raise UnsupportedConstruct(f"{missing[0][3]}: {missing[0][2]} is not emulated by the cpu backend",
                                   hint="use --backend gpu")


def _refuse_special(prog: Program, lower_cpu: bool) -> None:
    for what, span in prog.special:
        if what == "dynamic parallelism":
            raise UnsupportedConstruct(
                f"{span.where()}: a kernel launched from device code (dynamic parallelism) is not "
                f"supported", hint="the tools check kernels launched from host code only")
        if what == "grid synchronisation" and lower_cpu:
            raise UnsupportedConstruct(
                f"{span.where()}: grid-wide synchronisation (grid_group::sync) cannot run on the cpu backend, "
                f"which runs a grid's blocks one after another", hint="use --backend gpu")
        if what == "inline assembly" and lower_cpu:
            raise UnsupportedConstruct(
                f"{span.where()}: inline assembly (asm/PTX) in device code cannot run on the cpu backend",
                hint="use --backend gpu, or keep a C++ fallback under #ifdef CUDAEMU")


_shared = {"depth": 0, "cache": OrderedDict()}
_shared_lock = threading.Lock()


@contextmanager
def shared_parses(limit: int = 16):
    """Within this block, instrumenting the same file (same bytes, include dirs and defines)
    again reuses its parse and query instead of running libclang anew. Planners only read the
    Program, so several tools can instrument one parse (the selftest builds one program ten ways)."""
    with _shared_lock:
        _shared["depth"] += 1
        _shared["limit"] = max(limit, _shared.get("limit", 0) if _shared["depth"] > 1 else 0)
    try:
        yield
    finally:
        with _shared_lock:
            _shared["depth"] -= 1
            if _shared["depth"] == 0:
                _shared["cache"].clear()


def _analyse(src: Path, incs, defines, extra, planners, lower_cpu: bool, language: str | None, reading=(0, ())):
    """Parse, query and plan one source: (unit, program, plan)."""
    unit, prog = _parse_and_query(src, incs, defines, extra, language, reading)
    plan = EditPlan(unit)
    for planner in planners:
        planner(prog, plan)   # a tool's own refusal (with its reason) comes first
    refuse_unsupported(prog, lower_cpu)
    if lower_cpu:
        lower_for_cpu(prog, plan)
    return unit, prog, plan


def _parse_and_query(src: Path, incs, defines, extra=(), language: str | None = None,
                     reading=(0, ())) -> tuple[ParsedUnit, Program]:
    if not _shared["depth"]:
        return _read(src, incs, defines, extra, language, reading)
    key = (str(src), hashlib.sha256(Path(src).read_bytes()).hexdigest(), tuple(map(str, incs)), tuple(defines),
           tuple(extra), language, reading)
    with _shared_lock:
        hit = _shared["cache"].get(key)
        if hit is not None:
            _shared["cache"].move_to_end(key)
            return hit
    found = _read(src, incs, defines, extra, language, reading)
    with _shared_lock:
        _shared["cache"][key] = found
        while len(_shared["cache"]) > _shared.get("limit", 16):
            _shared["cache"].popitem(last=False)
    return found


def _read(src: Path, incs, defines, extra, language, reading) -> tuple[ParsedUnit, Program]:
    """The unit as nvcc's host pass reads it; where it holds a condition on __CUDA_ARCH__, merged with its
    reading as the device pass of `reading`'s architecture (device_view.py; its failure is noted, not
    raised: the unseen code is then named by the planners' warnings)."""
    unit = parse_file(src, include_dirs=incs, defines=defines, extra=extra, language=language)
    prog = query(unit)
    arch, others = reading
    if not arch or unit.language != "cuda" or not device_view.wanted(unit):
        return unit, prog
    try:
        dunit = parse_file(src, include_dirs=incs, defines=defines, extra=extra, language=language, device_arch=arch)
    except ParseError as exc:
        prog.device_error = str(exc)
        return unit, prog
    merged = device_view.merge(prog, query(dunit), others)
    return merged.unit, merged


def build(sources: list[Path], backend: Backend, work_dir: Path, planners: list[Planner] = (),
          include_dirs=(), defines=(), flags=(), exe_name: str = "prog", opt: str = "-O2",
          cpu_planners: list[Planner] = (), src_name: str = "src", library: bool = False,
          cache: bool = False, tool_flags=(), check: Callable[[list[Program]], None] | None = None) -> BuiltProgram:
    """The one path from sources to an executable, for every tool: instrument with `planners`
    (and `cpu_planners` where the backend lowers for the host compiler) into work_dir/src_name,
    then build work_dir/exe_name against the runtime headers, with the planners' defines
    (`library`: work_dir/exe_name.so, run by a row host: instrument/compile/row_host.py; `cache`:
    an unchanged build is copied from the build cache, build_cache.py; `tool_flags`: compiler options
    the tool adds to the program's `flags`, such as a register limit; `check`: given the programs
    once they are read, before the build: a tool's check of its options against them, whose error
    comes without a compile)."""
    work_dir = Path(work_dir)
    lower = backend.needs_lowering
    planners = (list(cpu_planners) if lower else []) + list(planners)
    if planners and backend.real_device:
        budget = _register_budget(sources, backend, work_dir / "as-written", include_dirs, defines, flags, opt, tool_flags)
        if budget is not None:
            planners.insert(0, budget)
            tool_flags = register_budget.without_register_limit(tool_flags) + budget.flags()
            flags = register_budget.without_register_limit(flags)
    flags = list(tool_flags) + list(flags)
    if not planners and not lower:   # the sources as they are
        ins = Instrumented([Path(s).resolve() for s in sources], [Path(d).resolve() for d in include_dirs], [], [])
    else:
        ins = instrument_sources(sources, work_dir / src_name, planners, include_dirs, defines, lower_cpu=lower,
                                 archs=device_view.archs_of(list(flags)) or backend.device_archs())
    if check is not None:
        check(ins.programs)
    exe = work_dir / (exe_name + ".so" if library else exe_name)
    defines = list(defines) + planned_defines(planners)
    if lower:   # what no unit uses left out of the emulation (every source of the program is in this build)
        defines += cpu_parts.defines(ins.programs)
    req = BuildRequest(list(ins.sources), exe, list(ins.include_dirs) + [include_dir()], defines,
                       list(flags), opt=opt, library=library)
    if not cache:
        backend.build(req)
        return BuiltProgram(exe, work_dir, ins.programs, ins.warnings)
    tree = work_dir / src_name if ins.root is not None else None
    cached, note = build_cache.build(backend, req, work_dir, tree)
    return BuiltProgram(exe, work_dir, ins.programs, ins.warnings, cached, note)


def _register_budget(sources, backend: Backend, scratch: Path, include_dirs, defines, flags, opt, tool_flags):
    """The kernels of sources that ask the occupancy API or launch cooperatively, measured as written
    (the program's own flags, without the tool's): their register budget (register_budget.py)."""
    regs: dict[str, dict[int, int]] = {}
    for n, src in enumerate(sources):
        try:
            if Path(src).suffix == ".c" or not register_budget.wanted(Path(src).read_bytes()):
                continue
        except OSError:
            continue
        out = scratch / f"unit{n}.o"
        cmd = backend.compile_command(BuildRequest([Path(src)], out, [Path(d) for d in include_dirs], list(defines),
                                                   list(flags), opt=opt), compile_only=True)
        found = register_budget.measure(cmd[:-2], scratch / f"unit{n}")
        for name, arches in found.items():
            for arch, count in arches.items():
                regs.setdefault(name, {})[arch] = max(regs.get(name, {}).get(arch, 0), count)
    if not regs:
        return None
    return register_budget.RegisterBudget(regs, register_budget.register_limit(list(tool_flags) + list(flags)))


def clean(work_dir: Path) -> None:
    shutil.rmtree(work_dir, ignore_errors=True)
