"""The cpu backend's launch harness: a C++ file that includes a kernel source and gives
each of its kernels a C entry point that ctypes can call. Launches in the harness are
ordinary `<<<...>>>` launches, so the cpu lowering and every tool's launch hooks apply."""
from __future__ import annotations

from pathlib import Path

from runtime import include_dir

from .signatures import KernelSig


def entry_name(source_index: int, kernel_index: int) -> str:
    return f"cctk_py_launch_{source_index}_{kernel_index}"


def harness_text(source: Path, source_index: int, sigs: list[KernelSig], finish: bool) -> str:
    """`source` is included by its bare name: the build puts its directory (or the
    directory of its instrumented copy) first on the include path."""
    out = [f"// generated: Python launch entries for the kernels of {source}",
           f'#include "{include_dir() / "pylaunch" / "pylaunch.h"}"',
           f'#include "{source.name}"', ""]
    for j, s in enumerate(sigs):
        if s.problem:
            continue
        k = f"::{s.qualified}"
        args = ", ".join(f"::pylaunch::arg<decltype(&{k}), {i}>(a)" for i in range(len(s.params)))
        out += [f'extern "C" int {entry_name(source_index, j)}(const unsigned *c, unsigned long long shm, void **a) {{',
                f"  {k}<<<dim3(c[0], c[1], c[2]), dim3(c[3], c[4], c[5]), shm>>>({args});",
                "  (void)a;",
                "  return int(cudaDeviceSynchronize());",
                "}", ""]
    if finish:
        out += ['extern "C" void cctk_py_set_fault_fd(int fd) {',
                "#ifdef CUDAEMU", "  ::cudaemu::detail::g_fault_fd = fd;", "#else", "  (void)fd;", "#endif",
                "}", ""]
        # the tools' runtimes write what they measured at exit (cudacommon/host_runtime.h's end
        # hooks); Python calls this first, so that results are on disk even when the interpreter
        # ends without running atexit
        out += ['extern "C" void cctk_py_finish() {',
                "#ifdef CCTK_HOST_RUNTIME_H", "  ::cctk::host::run_end_hooks();", "#endif",
                "}", ""]
    return "\n".join(out)
