"""Kernels keep their occupancy under instrumentation where the program sees it
(instrument/compile/register_budget.py): the cap against NVIDIA's own occupancy calculator, and
units compiled through hirace-cc and the gpu backend's build with nvcc (no device needed)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, project_env
from instrument.backends.gpu import GpuBackend
from instrument.compile import pipeline, register_budget
from instrument.compile.toolchain import nvcc_include_dirs
from instrument.compile.register_budget import RegisterBudget, blocks_per_sm, kernel_name, occupancy_cap, parse_report

# (compute capability, resident threads, resident blocks, shared memory per multiprocessor in KiB)
ARCHES = {"75": (1024, 16, 64), "80": (2048, 32, 164), "86": (1536, 16, 100), "89": (1536, 24, 100),
          "90": (2048, 32, 228), "100": (2048, 32, 228), "120": (1536, 24, 100)}

CALCULATOR = r"""
#include <cuda_occupancy.h>
#include <cstdio>
#include <cstdlib>
// argv: major minor threads blocks smem_kib; prints "regs block resident" for every count and block size
int main(int argc, char **argv) {
  (void)argc;
  cudaOccDeviceProp p{};
  p.computeMajor = atoi(argv[1]); p.computeMinor = atoi(argv[2]);
  p.maxThreadsPerBlock = 1024; p.maxThreadsPerMultiprocessor = atoi(argv[3]);
  p.regsPerBlock = 65536; p.regsPerMultiprocessor = 65536; p.warpSize = 32; p.numSms = 1;
  p.sharedMemPerBlock = 48 * 1024; p.sharedMemPerMultiprocessor = size_t(atoi(argv[5])) * 1024;
  p.sharedMemPerBlockOptin = p.sharedMemPerMultiprocessor - 1024; p.reservedSharedMemPerBlock = 1024;
  for (int regs = 1; regs <= 255; ++regs)
    for (int block = 32; block <= 1024; block += 32) {
      cudaOccFuncAttributes f{};
      f.maxThreadsPerBlock = 1024; f.numRegs = regs; f.numBlockBarriers = 1;
      cudaOccDeviceState s{};
      cudaOccResult r{};
      if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &f, &s, block, 0) != CUDA_OCC_SUCCESS) return 1;
      printf("%d %d %d\n", regs, block, r.activeBlocksPerMultiprocessor);
    }
  return 0;
}
"""


@pytest.fixture(scope="module")
def calculator(tmp_path_factory, nvcc_module) -> dict[str, dict[tuple[int, int], int]]:
    """NVIDIA's occupancy calculator (the toolkit's cuda_occupancy.h), built for the host: resident
    blocks by (registers, block size), for each architecture of ARCHES."""
    dirs = [d for group in nvcc_include_dirs() for d in group]
    include = next((Path(d) for d in dirs if (Path(d) / "cuda_occupancy.h").is_file()), None)
    if include is None:
        pytest.skip(f"the toolkit's cuda_occupancy.h is not in nvcc's include directories ({dirs})")
    d = tmp_path_factory.mktemp("occ")
    (d / "occ.cpp").write_text(CALCULATOR)
    subprocess.run(["g++", "-std=c++17", f"-I{include}", str(d / "occ.cpp"), "-o", str(d / "occ")], check=True)
    table = {}
    for cc, (threads, blocks, smem) in ARCHES.items():
        out = subprocess.run([str(d / "occ"), cc[:-1], cc[-1], str(threads), str(blocks), str(smem)],
                             capture_output=True, text=True, check=True).stdout
        table[cc] = {(int(r), int(b)): int(n) for r, b, n in (ln.split() for ln in out.splitlines())}
    return table


@pytest.fixture(scope="module")
def nvcc_module():
    from instrument.compile.toolchain import nvcc_path
    if nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA toolkit is needed")
    return nvcc_path()


def test_our_occupancy_rules_are_the_calculators(calculator):
    for cc, (threads, blocks, _) in ARCHES.items():
        for (regs, block), n in calculator[cc].items():
            assert blocks_per_sm(regs, block, threads // 32, blocks) == n, (cc, regs, block)


def test_the_cap_keeps_every_block_size_resident_as_the_plain_count_on_every_architecture(calculator):
    raised = 0
    for regs in range(1, 256):
        cap = occupancy_cap(regs)
        assert cap >= regs
        raised += cap > regs
        for cc, table in calculator.items():
            for block in range(32, 1025, 32):
                assert table[(cap, block)] == table[(regs, block)], (cc, regs, cap, block)
    assert occupancy_cap(8) == 32 and raised > 100   # (a small kernel may use four times its registers)


def test_the_report_and_the_names():
    report = """ptxas info    : Compiling entry function '_Z6squarePii' for 'sm_80'
ptxas info    : Function properties for _Z6squarePii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers, 364 bytes cmem[0]
ptxas info    : Compiling entry function 'reduce' for 'sm_100a'
ptxas info    : Used 30 registers, used 1 barriers
"""
    assert parse_report(report) == {"_Z6squarePii": {800: 8}, "reduce": {1000: 30}}
    assert kernel_name("void ns::k<4, S<int> >(float*, S<int>)") == "ns::k"
    assert kernel_name("(anonymous namespace)::k(int*)") == "(anonymous namespace)::k"
    assert kernel_name("square(int*, int)") == "square"
    assert register_budget.register_limit(["-O2", "-maxrregcount=64"]) == 64
    assert register_budget.register_limit(["--maxrregcount", "40"]) == 40
    assert register_budget.register_limit(["-O2"]) == 255
    assert register_budget.without_register_limit(["-O2", "-maxrregcount", "40", "--maxrregcount=8", "-g"]) == ["-O2", "-g"]


COOPERATIVE = r"""
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;
namespace work {
__global__ void sum(const float *in, float *out, int n) {
  cg::grid_group grid = cg::this_grid();
  float s = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) s += in[i];
  atomicAdd(out, s);
  grid.sync();
  if (grid.thread_rank() == 0) out[1] = out[0] * 2;
}
}
template <int N> __global__ void scale(float *a) { a[blockIdx.x * blockDim.x + threadIdx.x] *= N; }
__global__ void __launch_bounds__(256) bounded(float *a) { a[threadIdx.x] += 1; }
int main() {
  int blocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, work::sum, 1024, 0);
  float *d = nullptr;
  cudaMalloc(&d, 4096 * sizeof(float));
  int n = 4096;
  void *args[] = {&d, &d, &n};
  cudaLaunchCooperativeKernel((void *)work::sum, dim3(blocks), dim3(1024), args, 0, nullptr);
  scale<3><<<4, 1024>>>(d);
  bounded<<<1, 256>>>(d);
  printf("%d\n", blocks);
  return 0;
}
"""
ARCH_FLAGS = ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"]


def _ptxas(text: str) -> dict[str, dict[int, int]]:
    return {kernel_name(_demangle(s)): arches for s, arches in parse_report(text).items()}


def _demangle(symbol: str) -> str:
    if not symbol.startswith("_Z"):
        return symbol
    return subprocess.run(["c++filt", symbol], capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize("flags", [ARCH_FLAGS[2:], [*ARCH_FLAGS, "-rdc=true", "-maxrregcount=48"]], ids=["whole", "rdc"])
def test_hirace_cc_caps_the_kernels_of_a_unit_that_asks_the_occupancy_api(tmp_path, nvcc_module, flags):
    """Per architecture; under -rdc a kernel calls the runtime's checks compiled apart, which must fit
    its cap (ptxas refuses a kernel that calls a function with more registers than its own limit)."""
    src = tmp_path / "coop.cu"
    src.write_text(COOPERATIVE)
    plain = subprocess.run([nvcc_module, *flags, "-Xptxas", "-v", "-c", str(src), "-o", str(tmp_path / "p.o")],
                           capture_output=True, text=True)
    assert plain.returncode == 0, plain.stderr
    env = project_env(("HIRACE_",))
    res = subprocess.run([BIN / "hirace-cc", nvcc_module, *flags, "-Xptxas", "-v", "-c", str(src),
                          "-o", str(tmp_path / "h.o")], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    before, after = _ptxas(plain.stdout + plain.stderr), _ptxas(res.stdout + res.stderr)
    for kernel in ("work::sum", "scale"):
        for arch, regs in before[kernel].items():
            assert after[kernel][arch] <= occupancy_cap(regs), (kernel, arch, before, after)
            for versions in (k for k in after if k.startswith(kernel + "__hirace")):
                assert after[versions][arch] <= occupancy_cap(regs)
    # the kernel with its own bounds keeps them, and the build says so
    assert "'bounded' sets its own register bounds" in res.stderr
    # the user's object is written, and nothing of ours is left beside it
    assert (tmp_path / "h.o").is_file() and sorted(p.name for p in tmp_path.iterdir()) == ["coop.cu", "h.o", "p.o"]


def test_a_unit_is_measured_where_it_asks_the_occupancy_api_or_launches_cooperatively(tmp_path):
    src = tmp_path / "plain.cu"
    src.write_text(re.sub(r"cudaOccupancy\w+\(&blocks, work::sum, 1024, 0\);|cudaLaunchCooperativeKernel\([^;]*;",
                          "", COOPERATIVE).replace("cg::this_grid()", "cg::grid_group()"))
    assert not register_budget.wanted(src.read_bytes())
    assert register_budget.wanted(COOPERATIVE.encode())
    for form in ("cudaOccupancyMaxPotentialBlockSize(&g, &b, k)", "cudaLaunchCooperativeKernel((void *)k, 1, 1, a)",
                 "auto g = cooperative_groups::this_grid();", "attr.id = cudaLaunchAttributeCooperative;"):
        assert register_budget.wanted(form.encode()), form


def test_the_gpu_backends_build_measures_the_units_that_want_it(tmp_path, nvcc_module):
    src = tmp_path / "coop.cu"
    src.write_text(COOPERATIVE)
    budget = pipeline._register_budget([src], GpuBackend(arch="sm_90"), tmp_path / "as-written", [], [], [], "-O2",
                                       ["-maxrregcount=64"])
    assert isinstance(budget, RegisterBudget) and budget.limit == 64
    assert budget.default == min(c for arches in budget.caps.values() for c in arches.values()) <= 32
    assert budget.flags() == [f"-maxrregcount={budget.default}"]
    assert set(budget.regs) >= {"work::sum", "scale", "bounded"} and set(budget.regs["work::sum"]) == {900}
    other = tmp_path / "other.cu"
    other.write_text("__global__ void k(int *a) { a[threadIdx.x] = 1; }\n")
    assert pipeline._register_budget([other], GpuBackend(arch="sm_90"), tmp_path / "x", [], [], [], "-O2", []) is None
