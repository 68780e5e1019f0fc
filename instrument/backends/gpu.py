"""The gpu backend: nvcc builds, a real NVIDIA device runs."""
from __future__ import annotations

from pathlib import Path

from ..errors import ToolchainMissing
from ..compile.toolchain import gpu_arch, gpu_usable, nvcc_path
from ..frontend.device_view import archs_of
from .base import Backend, BuildRequest


class GpuBackend(Backend):
    name = "gpu"
    real_device = True

    def toolchain_id(self) -> str:
        return f"gpu\0{nvcc_path()}\0{self.arch or gpu_arch()}"

    def device_archs(self) -> list[int]:
        arch = self.arch if self.arch and self.arch != "native" else gpu_arch()
        return archs_of([f"-arch={arch}"]) if arch else []

    def compilers(self) -> list[str]:
        return [str(nvcc_path()), "gcc", "g++"]   # (nvcc's host compiler: the one on PATH)

    def __init__(self, arch: str | None = None):
        self.arch = arch

    def available(self) -> tuple[bool, str]:
        if nvcc_path() is None:
            return False, "nvcc not found (set CUDA_HOME or put nvcc on PATH)"
        if not gpu_usable():
            return False, "no CUDA device answers (nvidia-smi lists none)"
        return True, ""

    def compile_command(self, req: BuildRequest, compile_only: bool = False) -> list[str]:
        nvcc = nvcc_path()
        if nvcc is None:
            raise ToolchainMissing("the gpu backend needs nvcc, which was not found",
                                   hint="install the CUDA toolkit or use --backend cpu")
        arch = self.arch or ("native" if gpu_usable() else None)
        # (-g1: the host code's line tables, for the lines hirace names in host code: host_access.h)
        cmd = [str(nvcc), req.opt, "-std=c++17", "-lineinfo", "-Xcompiler", "-g1"]
        if arch:
            cmd.append(f"-arch={arch}")
        cmd += [f"-I{d}" for d in req.include_dirs] + [f"-D{d}" for d in req.defines]
        cmd += list(req.flags)
        if req.library:   # one CUDA runtime for the row host and every library it loads
            cmd += ["-shared", "-Xcompiler", "-fPIC,-fno-gnu-unique", "-cudart", "shared"]
        if compile_only:
            return cmd + ["-c", *map(str, req.sources), "-o", str(req.output)]
        return cmd + [*map(str, req.sources), "-o", str(req.output)]

    def build_cubin(self, req: BuildRequest) -> Path:
        """nvcc -cubin: one module of device code, for the driver binding to load (a real architecture:
        the device's, or nvcc's default where no device answers)."""
        cmd = self.compile_command(req)
        cmd = [c for c in cmd if not c.startswith("-arch=")]
        arch = self.arch if self.arch and self.arch != "native" else gpu_arch()
        at = cmd.index("-o")
        cmd[at - len(req.sources):at - len(req.sources)] = (["-cubin"] + ([f"-arch={arch}"] if arch else []))
        return self._compile(cmd, req)

    def build(self, req: BuildRequest) -> Path:
        return self._compile(self.compile_command(req), req)

    def row_host_command(self, source: Path, output: Path) -> list[str]:
        nvcc = nvcc_path()
        if nvcc is None:
            raise ToolchainMissing("the gpu backend needs nvcc, which was not found",
                                   hint="install the CUDA toolkit or use --backend cpu")
        return [str(nvcc), "-O2", "-DROW_HOST_CUDA", "-cudart", "shared", "-Xlinker", "--export-dynamic",
                str(source), "-o", str(output), "-ldl", "-lpthread"]

    def compile_object(self, req: BuildRequest) -> Path:
        """nvcc -c: checks that instrumented code compiles, even with no device here."""
        return self._compile(self.compile_command(req, compile_only=True), req)
