"""The cpu backend: the host C++ compiler builds against cudaemu; threads run as fibers."""
from __future__ import annotations

import platform
from pathlib import Path

from runtime import include_dir

from ..errors import BuildError, ToolchainMissing
from ..protocol import EXIT_MEANING, Env, Exit
from ..compile import pch
from ..compile.toolchain import c_compiler, host_cxx, library_options
from .base import Backend, BuildRequest, RunResult

# exit codes the emulation header uses for faults it detects
FAULT_CODES = {int(e): EXIT_MEANING[e] for e in (Exit.BARRIER_DIVERGENCE, Exit.DEADLOCK, Exit.EMULATION_FAULT)}


class CpuBackend(Backend):
    name = "cpu"
    needs_lowering = True
    orders_blocks = True

    def block_order_env(self, order: str, seed: int | None = None) -> dict:
        env = {Env.CUDAEMU_BLOCK_ORDER: order}
        if seed is not None:
            env[Env.CUDAEMU_SEED] = str(seed)
        return env

    def toolchain_id(self) -> str:
        return f"cpu\0{host_cxx()}"

    def compilers(self) -> list[str]:
        return [host_cxx(), c_compiler()]

    def available(self) -> tuple[bool, str]:
        if host_cxx() is None:
            return False, "no host C++ compiler (g++ or clang++) found"
        if platform.machine() not in ("x86_64", "AMD64"):
            return False, f"the fiber switch supports x86-64 only, not {platform.machine()}"
        return True, ""

    def _options(self, req: BuildRequest) -> tuple[list[str], list[str], list[str]]:
        """The host compiler's options for the CUDA and C++ sources, in three parts: before the
        emulation header, after it (the directories searched before the build's own), and after the
        build's include directories and -D macros. Without the header, its directories and macros,
        they are what a precompiled emulation header is made with (instrument/compile/pch.py)."""
        # line tables only (-g1): what the fault messages' addr2line needs, at a third less compile
        # time than full debug information; DWARF 4, whose file names follow #line directives
        # where this binutils' addr2line reads DWARF 5's as the compiled copy's
        head = [req.opt, "-std=c++17", "-gdwarf-4", "-g1", "-w", "-fno-omit-frame-pointer"]
        search = ["-isystem", str(include_dir() / "cudaemu" / "shim"), f"-I{include_dir()}", *library_options()]
        tail = [*map(str, req.flags), *(["-shared", "-fPIC", "-fno-gnu-unique"] if req.library else [])]
        return head, search, tail

    def compile_command(self, req: BuildRequest, objects=(), header: Path | None = None) -> list[str]:
        """One host-compiler command for the CUDA and C++ sources (as C++, with the emulation
        header, or `header` in its place: its precompiled form), linking `objects` (the C sources,
        compiled apart as C)."""
        cxx = host_cxx()
        if cxx is None:
            raise ToolchainMissing("the cpu backend needs g++ or clang++", hint="install g++")
        head, search, tail = self._options(req)
        cmd = [cxx, *head, "-include", str(header or self.emulation_header()), *search,
               *(f"-I{d}" for d in req.include_dirs), *(f"-D{d}" for d in req.defines), *tail]
        cxx_sources = [s for s in req.sources if Path(s).suffix != ".c"]
        cmd += ["-x", "c++", *map(str, cxx_sources), "-x", "none", *map(str, objects), "-o", str(req.output), "-lm"]
        return cmd

    @staticmethod
    def emulation_header() -> Path:
        return include_dir() / "cudaemu" / "cudaemu.h"

    def build(self, req: BuildRequest) -> Path:
        objects = []
        for i, src in enumerate(s for s in req.sources if Path(s).suffix == ".c"):
            obj = Path(req.output).with_name(f"{Path(req.output).name}.c{i}.o")
            cmd = [c_compiler(), req.opt, "-gdwarf-4", "-g1", "-w", *(["-fPIC"] if req.library else []),
                   *[f"-I{d}" for d in req.include_dirs],
                   *[f"-D{d}" for d in req.defines], "-c", str(src), "-o", str(obj)]
            self._compile(cmd, BuildRequest([src], obj, depfile=req.depfile))
            objects.append(obj)
        cxx = host_cxx()
        head, search, tail = self._options(req)
        pre = pch.use(self.emulation_header(), cxx, [*head, *search], req.include_dirs, req.defines, tail) if cxx else None
        if pre is None:
            return self._compile(self.compile_command(req, objects), req)
        try:
            out = self._compile(self.compile_command(req, objects, pre.header), req)
        except BuildError:
            if pre.intact():
                raise
            return self._compile(self.compile_command(req, objects), req)   # (removed underneath: as it was)
        if req.depfile is not None:   # (gcc names none of the files a precompiled header read)
            with open(req.depfile, "a") as f:
                f.write(f"{pch.dependency_rule(pre)}\n")
        return out

    def row_host_command(self, source: Path, output: Path) -> list[str]:
        cxx = host_cxx()
        if cxx is None:
            raise ToolchainMissing("the cpu backend needs g++ or clang++", hint="install g++")
        return [cxx, "-O2", "-rdynamic", str(source), "-o", str(output), "-ldl", "-lpthread"]

    def fault_of(self, result: RunResult) -> str | None:
        """The emulator fault that stopped a run, if any (its message is on stderr)."""
        return None if result.timed_out else FAULT_CODES.get(result.returncode)

    def fault_detail(self, result: RunResult) -> str | None:
        fault = self.fault_of(result)
        if not fault:
            return None
        detail = next((ln for ln in result.stderr.splitlines() if ln.startswith("cudaemu:")), "")[9:]
        return f"{fault}: {detail}" if detail else fault
