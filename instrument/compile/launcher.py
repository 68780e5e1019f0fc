"""A compiler launcher (ccache-style): `TOOL-cc COMPILER ARGS...`, as CMake's
CMAKE_<LANG>_COMPILER_LAUNCHER / CMAKE_<LANG>_LINKER_LAUNCHER or a Makefile's `NVCC="hirace-cc nvcc"`
run it. Each CUDA unit of the line is instrumented with that line's own flags (instrument/compile/compile_line.py)
into a private scratch directory and compiled from there with the user's compiler and flags, to the
user's object and dependency files; a host unit the tool asks for (hirace: one that allocates device
memory, for the allocation hooks) is planned too; every other line (links, probes, preprocessing) runs
as it is.

A tool's launcher is a few lines (hirace/cc.py, cltestcheck/cc.py): its `Tool` names it, the variable
that picks its backend and its planner for one unit, and what else it wants (host units it plans,
flags for nvcc, a check of its plan: cltc's mutant schemata drop the lines whose mutants do not parse).

With HIRACE_BACKEND=cpu (the variable a tool names) the cpu backend builds the project: units are
lowered and compiled by the host compiler against the emulation (cudaemu), links drop the CUDA
runtime libraries, and an object compiled against the CUDA toolkit's own headers is refused by name.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from runtime import include_dir

from . import compile_line, register_budget
from ..backends.process import run_process
from .compile_line import CompileLine, Input
from ..errors import UserError
from ..frontend.parse import error_diagnostics
from .pipeline import instrument_sources, planned_defines
from .. import reaper
from ..reaper import temp_dir
from .toolchain import gpu_arch, host_cxx, library_options
from ..frontend.device_view import archs_of

# a host source that allocates device memory (hirace plans those: its Tool's host_units)
ALLOCATES = re.compile(rb"\bcuda(?:Malloc\w*|Free\w*|HostAlloc)\b")
# options of a compile-and-link line that belong to its compiles, not its link
_DEPENDENCY_ITEMS = {"-MD", "-MMD", "-MF", "-MT", "-MQ", "-MP", "--generate-dependencies-with-compile",
                     "--generate-nonsystem-dependencies-with-compile"}
_COMPILE_ONLY_ITEMS = _DEPENDENCY_ITEMS | {"-x"}
# a C-linkage CUDA runtime function an object calls: it was compiled against the toolkit's headers
_REAL_CUDA = re.compile(r"^cuda[A-Z]\w*$")


@dataclass
class Tool:
    """What a tool gives the launcher: its name (messages), the environment variable that picks the
    backend, and its planner for one unit (lower_cpu: the cpu backend; the unit's source, whose
    directory its configuration is found from). `host_units`: a host (C/C++) source whose text matches
    it is planned too (hirace: sources that allocate device memory get the allocation hooks); else
    host sources compile as they are. `gpu_flags`: nvcc options an instrumented CUDA unit is compiled
    with unless its line sets that option itself (hirace: -maxrregcount=64)."""
    name: str
    backend_variable: str
    planner: Callable[[bool, Path], object]
    host_units: re.Pattern | None = None
    gpu_flags: tuple[str, ...] = ()
    # A tool whose edits may not parse (cltc's mutant schemata) plans a unit through `checked`: it gets
    # the unit's planner and `errors(planner)`, which plans the unit with a planner (without the cpu
    # lowering) and returns libclang's errors in the result as (file, line, message), and it returns the
    # planner to build with (a fresh one: a planner plans one unit once).
    checked: Callable[[object, Callable[[object], list]], object] | None = None
    # planners a unit gets before the tool's own where the cpu backend builds it (cltc's mutate mode:
    # schedule points, so that seeded runs switch threads at every device memory access)
    cpu_planners: tuple = ()


def main(tool: Tool, argv: list[str]) -> int:
    if not argv:
        raise UserError(f"{tool.name} needs the compiler and its arguments: {tool.name} nvcc -c a.cu -o a.o",
                        hint="CMake: -DCMAKE_CUDA_COMPILER_LAUNCHER=" + tool.name)
    backend = os.environ.get(tool.backend_variable, "gpu") or "gpu"
    if backend not in ("gpu", "cpu"):
        raise UserError(f"{tool.backend_variable}={backend}: the launcher builds for gpu or cpu")
    if shutil.which(argv[0]) is None and not Path(argv[0]).is_file():
        raise UserError(f"{argv[0]}: no such compiler", hint=f"{tool.name} takes the real compiler first: "
                        f"{tool.name} nvcc ...")
    line = compile_line.parse(argv)
    if line.not_a_build:
        cuda = [i for i in line.inputs() if i.language == "cuda"]
        if backend == "gpu" or not line.nvcc or not line.inputs():
            return _run(argv)   # (nvcc --version and the like answer as they are)
        emu = include_dir() / "cudaemu"   # (-M, -E of CUDA units: as the emulation's host compiler sees them)
        replace = {i.index: ["-x", "c++", i.path, "-x", "none"] for i in cuda}
        return _run([_host_compiler(line), "-include", str(emu / "cudaemu.h"), "-isystem", str(emu / "shim"),
                     *library_options(), f"-I{include_dir()}", *line.host_argv(replace, toolkit_dirs=_toolkit_include_dirs(line))])
    return _Build(tool, line, backend == "cpu").run()


def _run(cmd: list[str], capture: bool = False):
    """Run a compiler: its status (its output goes to ours), or the whole result with `capture`."""
    res = run_process([str(c) for c in cmd], passthrough=not capture, env=reaper.scratch_env())
    return res if capture else res.returncode


def _host_compiler(line: CompileLine) -> str:
    """The compiler the cpu backend uses for a line: the line's own when it is a host compiler,
    else nvcc's -ccbin, else the machine's C++ compiler."""
    if not line.nvcc:
        return line.compiler
    ccbin = [i.value for i in line.items if i.name == "-ccbin"]
    if ccbin and not Path(ccbin[-1]).is_dir():
        name = Path(ccbin[-1]).name   # (nvcc drives C++ through it: gcc -> g++, clang -> clang++)
        sibling = {"gcc": "g++", "cc": "c++", "clang": "clang++"}.get(name)
        return str(Path(ccbin[-1]).with_name(sibling)) if sibling and "/" in ccbin[-1] else sibling or ccbin[-1]
    cxx = host_cxx()
    if cxx is None:
        raise UserError("the cpu backend needs a host C++ compiler (g++ or clang++)", hint="install g++")
    return cxx


class _Build:
    def __init__(self, tool: Tool, line: CompileLine, cpu: bool):
        self.tool, self.line, self.cpu = tool, line, cpu
        self.toolkit = _toolkit_include_dirs(line)   # (the line's CUDA toolkit include dirs, asked once)

    def run(self) -> int:
        line = self.line
        inputs = line.inputs()
        sources = [i for i in inputs if i.language in ("cuda", "c++", "c")]
        if self.cpu and line.device_link:
            return self._empty_object()
        if self.cpu and line.makes_library:
            return self._archive([i for i in inputs if i.language == "object"])
        if not sources:
            return self._link({})
        with temp_dir(prefix=f"{self.tool.name}-") as tmp:
            tmp = Path(tmp)
            if line.compile_only:
                if len(sources) > 1 and line.output:
                    raise UserError(f"{self.tool.name}: -o with {len(sources)} sources and -c",
                                    hint="compile one source a line")
                for n, src in enumerate(sources):
                    out = line.output or str(Path(src.path).with_suffix(".o").name)
                    status = self._compile(src, out, tmp / f"unit{n}")
                    if status:
                        return status
                return 0
            # compile and link in one line: each source to an object of ours, then the link
            objects = {}
            for n, src in enumerate(sources):
                obj = tmp / f"unit{n}.o"
                status = self._compile(src, str(obj), tmp / f"unit{n}", for_link=True)
                if status:
                    return status
                objects[src.index] = [str(obj)]
            return self._link(objects)

    # ---------------------------------------------------------------- one unit
    def _needs_planning(self, src: Input) -> bool:
        if src.language == "cuda":
            return True
        if src.language == "c++" and self.tool.host_units is not None:
            try:
                return bool(self.tool.host_units.search(Path(src.path).read_bytes()))
            except OSError:
                return False   # (the compiler names a missing file)
        return False

    def _compile(self, src: Input, out: str, scratch: Path, for_link: bool = False) -> int:
        line = self.line
        others = {i.index for i in line.inputs() if i.index != src.index}
        keep = lambda it: not (it.name == "-o" or (for_link and it.name in _DEPENDENCY_ITEMS))  # noqa: E731
        if not self._needs_planning(src):
            return self._plain_compile(src, out, others, keep, for_link)
        planner = self.tool.planner(self.cpu, Path(src.path))
        if self.tool.checked is not None:
            planner = self.tool.checked(planner, lambda p: self._parse_errors(src, scratch / "check", p))
        # (the parser reads our declarations of the CUDA runtime, never the toolkit's headers:
        # instrument/frontend/parse.py; the compiler still gets the line's own directories)
        toolkit = self.toolkit
        planners = (list(self.tool.cpu_planners) if self.cpu else []) + [planner]
        own = {i.name for i in line.items}
        extra = [] if self.cpu or src.language != "cuda" or not line.nvcc else \
            [f for f in self.tool.gpu_flags if f.split("=")[0] not in own]
        budget = self._register_budget(src, others, keep, extra, scratch / "as-written")
        if budget is not None:
            planners.insert(0, budget)
        ins = instrument_sources([Path(src.path)], scratch / "src", planners,
                                 [d for d in line.include_dirs() if d not in toolkit], line.defines(),
                                 lower_cpu=self.cpu, parse_extra=line.parse_extra(skip_dirs=toolkit),
                                 as_cuda=src.language == "cuda", archs=self._archs())
        for w in ins.warnings:
            print(f"{self.tool.name}: warning: {w}", file=sys.stderr)
        new = str(ins.sources[0])
        defines = [f"-D{d}" for d in planned_defines(planners)]
        incs = [f"-I{d}" for d in ins.include_dirs] + ["-isystem", str(include_dir())]   # (its warnings are not the user's)
        replace = {i: [] for i in others}
        if self.cpu:
            replace[src.index] = ["-x", "c++" if src.language != "c" else "c", new, "-x", "none"]
            cmd = self._cpu_compile_head(src) + incs + defines + self._host_args(replace, keep) + self._c(for_link) + ["-o", out]
        else:
            replace[src.index] = [new]
            drop = (lambda it: not keep(it)) if budget is None else \
                (lambda it: not keep(it) or it.name == "-maxrregcount")   # (the budget's own limit instead)
            if budget is not None:
                extra = register_budget.without_register_limit(extra) + budget.flags()
            cmd = [line.compiler] + incs + defines + extra + line.argv(replace, drop=drop) + \
                self._c(for_link) + ["-o", out]
        res = _run(cmd, capture=True)
        if res.returncode != 0:
            plain = self._plain_compile(src, out, others, keep, for_link)
            if plain != 0:
                return plain   # the file does not compile as written either: the compiler said why
            sys.stderr.write(res.stdout + res.stderr)
            raise UserError(f"{src.path}: {self.tool.name}'s instrumentation of this unit does not compile, "
                            f"though the unit does as written (the compiler's message is above)",
                            hint="please report it with the file; build this file without the launcher meanwhile")
        sys.stdout.write(res.stdout)
        sys.stderr.write(res.stderr)
        if ins.root is not None:
            _fix_dependencies(line, out, scratch / "src", ins.root)
        return 0

    def _archs(self) -> list[int]:
        """The architectures the line compiles device code for (-arch, -gencode; `native`: the device's)."""
        archs = archs_of(self.line.argv())
        if not archs and any(a.partition("=")[2] == "native" or a == "native" for a in self.line.argv()):
            archs = archs_of([f"-arch={gpu_arch()}"]) if gpu_arch() else []
        return archs

    def _register_budget(self, src: Input, others: set[int], keep, extra: list[str], scratch: Path):
        """A CUDA unit whose kernels' occupancy the program sees (it asks the occupancy API, or launches
        cooperatively) keeps it: compiled first as written, to learn each kernel's registers
        (instrument/compile/register_budget.py)."""
        line = self.line
        if self.cpu or not line.nvcc or src.language != "cuda":
            return None
        try:
            if not register_budget.wanted(Path(src.path).read_bytes()):
                return None
        except OSError:
            return None
        replace = {i: [] for i in others}
        args = line.argv(replace, drop=lambda it: not keep(it) or it.name in _DEPENDENCY_ITEMS)
        regs = register_budget.measure([line.compiler] + args + ["-c"], scratch)
        if not regs:
            return None
        return register_budget.RegisterBudget(regs, register_budget.register_limit(extra + args))

    def _parse_errors(self, src: Input, out: Path, planner) -> list[tuple[str, int, str]]:
        """The unit planned by `planner` as the GPU compiler would see it, and libclang's errors in it
        (file, line, message; `#line` directives name the user's lines) with the line's flags."""
        line, toolkit = self.line, self.toolkit
        ins = instrument_sources([Path(src.path)], out, [planner], [d for d in line.include_dirs() if d not in toolkit],
                                 line.defines(), parse_extra=line.parse_extra(skip_dirs=toolkit),
                                 as_cuda=src.language == "cuda", archs=self._archs())
        dirs = list(ins.include_dirs) + [include_dir()] + \
            [i.value for i in line.items if i.name in ("-isystem", "-idirafter") and i.value not in toolkit]
        defines = list(line.defines()) + planned_defines([planner])
        return [e for s in ins.sources for e in error_diagnostics(s, dirs, defines)]

    def _cpu_compile_head(self, src: Input) -> list[str]:
        emu = include_dir() / "cudaemu"
        head = [_host_compiler(self.line)]
        if src.language == "cuda":
            head += ["-include", str(emu / "cudaemu.h"), "-w"]
            if not any(i.name == "-std" for i in self.line.items):
                head.append("-std=c++17")   # (nvcc's default)
            if not any(i.name.startswith("-g") for i in self.line.items):
                head += ["-gdwarf-4", "-g1"]   # what the emulation's fault messages read (backends/cpu.py)
        return head + ["-isystem", str(emu / "shim"), *library_options()]

    def _host_args(self, replace, keep) -> list[str]:
        """host_argv without the items `keep` refuses."""
        line = self.line
        kept = CompileLine(line.compiler, [it for it in line.items if keep(it)], line.nvcc)
        # (indices shift when items are dropped: map them by identity)
        index = {id(it): n for n, it in enumerate(kept.items)}
        moved = {index[id(line.items[i])]: v for i, v in replace.items() if id(line.items[i]) in index}
        return kept.host_argv(moved, toolkit_dirs=self.toolkit)

    @staticmethod
    def _c(for_link: bool) -> list[str]:
        """A unit of a compile-and-link line is compiled apart first (the link follows)."""
        return ["-c"] if for_link else []

    def _plain_compile(self, src: Input, out: str, others: set[int], keep, for_link: bool = False) -> int:
        """The unit compiled as written (gpu: the user's line for it; cpu: translated for the host
        compiler, against the emulation's headers)."""
        line = self.line
        replace = {i: [] for i in others}
        if not self.cpu:
            return _run([line.compiler] + line.argv(replace, drop=lambda it: not keep(it)) + self._c(for_link) + ["-o", out])
        if src.language == "c":
            cmd = [_c_compiler(line)] + self._host_args(replace, keep) + self._c(for_link) + ["-o", out]
        elif src.language == "cuda":   # as written, lowered for the host compiler (no tool's edits)
            with temp_dir(prefix=f"{self.tool.name}-plain-") as tmp:
                toolkit = self.toolkit
                ins = instrument_sources([Path(src.path)], Path(tmp), [], [d for d in line.include_dirs() if d not in toolkit],
                                         line.defines(), lower_cpu=True, parse_extra=line.parse_extra(skip_dirs=toolkit),
                                         as_cuda=True)
                replace[src.index] = ["-x", "c++", str(ins.sources[0]), "-x", "none"]
                cmd = self._cpu_compile_head(src) + [f"-I{d}" for d in ins.include_dirs] + \
                    self._host_args(replace, keep) + self._c(for_link) + ["-o", out]
                return _run(cmd)
        else:
            replace[src.index] = ["-x", "c++", src.path, "-x", "none"]
            cmd = self._cpu_compile_head(src) + [f"-I{include_dir()}"] + self._host_args(replace, keep) + \
                self._c(for_link) + ["-o", out]
        return _run(cmd)

    # ---------------------------------------------------------------- links
    def _link(self, objects: dict[int, list[str]]) -> int:
        line = self.line
        if objects:   # a compile-and-link line: its objects are ours now; its language and dependency
            # options were the compiles' (nvcc would read an object after -x cu as CUDA)
            kept = [it for n, it in enumerate(line.items) if n in objects or it.name not in _COMPILE_ONLY_ITEMS]
            index = {id(it): n for n, it in enumerate(kept)}
            objects = {index[id(line.items[n])]: v for n, v in objects.items()}
            line = CompileLine(line.compiler, kept, line.nvcc)
        if not self.cpu:
            return _run([line.compiler] + line.argv(objects))
        for i in line.inputs():
            if i.language == "object" and i.index not in objects:
                _refuse_toolkit_objects(self.tool.name, i.path)
        cmd = [_host_compiler(line)] + line.host_argv(objects, toolkit_dirs=self.toolkit)
        return _run(cmd + ["-lpthread", "-ldl", "-lm"])

    def _empty_object(self) -> int:
        """nvcc -dlink on the cpu backend: there is no device code to link; the build still gets its object."""
        out = self.line.output
        if not out:
            raise UserError(f"{self.tool.name}: a device link (-dlink) without -o", hint="name its output with -o")
        res = subprocess.run([_host_compiler(self.line), "-x", "c++", "-c", "-", "-o", out],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, env=reaper.scratch_env())
        if res.returncode:
            sys.stderr.write(res.stderr)
        return res.returncode

    def _archive(self, objects: list[Input]) -> int:
        """nvcc -lib on the cpu backend: an archive of the objects, by ar."""
        out = self.line.output
        if not out:
            raise UserError(f"{self.tool.name}: a library (-lib) without -o", hint="name its output with -o")
        if Path(out).exists():
            Path(out).unlink()   # (ar adds to an archive that exists; nvcc -lib writes a new one)
        return _run(["ar", "rcs", out, *[o.path for o in objects]])


def _c_compiler(line: CompileLine) -> str:
    from .toolchain import c_compiler
    return line.compiler if not line.nvcc else c_compiler()


def _toolkit_include_dirs(line: CompileLine) -> list[str]:
    """The CUDA toolkit's include directories a line names (the cpu backend's emulation replaces them)."""
    return [i.value for i in line.items if i.name in ("-I", "-isystem", "-idirafter")
            and compile_line._is_toolkit_include(i.value, ())]


def _refuse_toolkit_objects(tool: str, path: str) -> None:
    """A cpu-backend link: an object that calls the CUDA runtime by its C names was compiled
    against the toolkit's headers, not through the launcher, and cannot run on the emulation."""
    if shutil.which("nm") is None or not Path(path).is_file():
        return
    res = subprocess.run(["nm", "-u", "--format=just-symbols", path], capture_output=True, text=True)
    calls = sorted({s for s in res.stdout.split() if _REAL_CUDA.match(s)})
    if calls:
        raise UserError(f"{path} calls the CUDA runtime ({', '.join(calls[:3])}) but was compiled without {tool}, "
                        f"so it cannot run on the cpu backend",
                        hint=f"build every file that includes the CUDA runtime through {tool} (CMake: "
                             f"-DCMAKE_CXX_COMPILER_LAUNCHER={tool} as well)")


def _fix_dependencies(line: CompileLine, out: str, scratch: Path, root: Path) -> None:
    """The dependency file of an instrumented compile names the scratch copies: name the user's files."""
    names = line.names()
    if not names & {"-MD", "-MMD", "--generate-dependencies-with-compile",
                    "--generate-nonsystem-dependencies-with-compile"}:
        return
    mf = [i.value for i in line.items if i.name == "-MF"]
    dep = Path(mf[-1]) if mf else Path(out).with_suffix(".d")
    if not dep.is_file():
        return
    text = dep.read_text(errors="surrogateescape")
    user = str(root).rstrip("/") + "/"
    user = user.replace("$", "$$").replace("#", "\\#").replace(" ", "\\ ")   # (make's escapes)
    fixed = text.replace(str(scratch) + "/", user)
    if fixed != text:
        dep.write_text(fixed, errors="surrogateescape")

