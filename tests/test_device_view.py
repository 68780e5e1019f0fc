"""The device pass's view of device code (instrument/frontend/device_view.py): a unit with a condition
on __CUDA_ARCH__ is read again as nvcc's device pass reads it; device code's facts come from that
reading, host code's from the host pass's, a __host__ __device__ function's from both; the cpu backend
builds device-only conditions as the device pass of CPU_ARCH; what stays unseen is named."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cltestcheck.coverage.planner import CoveragePlanner
from hirace.config import Config
from hirace.planner import HiracePlanner
from instrument.compile import pipeline
from instrument.frontend import device_view
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query

from conftest import CUDA

ROOT = Path(__file__).resolve().parents[1]
RACES = CUDA / "races"


def _program(src: Path, tmp: Path, lower_cpu: bool = True, archs=(), planners=()):
    ins = pipeline.instrument_sources([src], tmp, list(planners), [src.parent], lower_cpu=lower_cpu, archs=archs)
    return ins, ins.programs[0]


def _accesses(prog) -> set[tuple[str, int, str]]:
    return {(a.function, a.span.line, a.kind) for a in prog.accesses}


def test_device_code_is_read_as_the_device_pass_reads_it(tmp_path):
    src = RACES / "arch_device_function_race.cu"
    host = query(parse_file(src, include_dirs=[RACES]))
    assert "put" not in host.functions and not host.accesses   # (the host pass sees neither)
    _, prog = _program(src, tmp_path)
    assert prog.device_arch == device_view.CPU_ARCH
    assert prog.functions["put"].kind == "device" and "put" in prog.calls["k"]
    assert ("put", 6, "write") in _accesses(prog)
    # a kernel's body: the device pass's branch, not the host pass's fallback
    _, body = _program(RACES / "arch_kernel_body_race.cu", tmp_path / "body")
    assert ("k", 6, "write") in _accesses(body) and not any(a.span.line == 8 for a in body.accesses)
    # host code keeps the host pass's facts: the launch in main
    assert [ls.kernel for ls in body.launches] == ["k"]


def test_a_unit_without_a_condition_is_read_once(tmp_path):
    _, prog = _program(RACES / "fn_device_function_race.cu", tmp_path)
    assert prog.device_arch == 0 and not prog.arch_conditions


HD = """__host__ __device__ void put(int *a, int i) {
#ifdef __CUDA_ARCH__
  a[i % 4] = 1;
#else
  a[i] = 2;
#endif
}
#if __CUDA_ARCH__ >= 700
#define FAST 1
#endif
#ifndef __CUDA_ARCH__
int host_side() { return 3; }
#endif
__global__ void k(int *a) {
  put(a, threadIdx.x);
#ifdef __CUDA_ARCH__
  a[threadIdx.x + 8] = 5;
#endif
}
int main() { int h[16]; put(h, 1); return 0; }
"""


def test_host_device_code_comes_from_both_passes_and_mixed_conditions_are_named_on_cpu(tmp_path):
    src = tmp_path / "hd.cu"
    src.write_text(HD)
    ins, prog = _program(src, tmp_path / "out")
    assert {("put", 3, "write"), ("put", 5, "write"), ("k", 17, "write")} <= _accesses(prog)
    verdicts = {c.line: c.verdict for c in prog.arch_conditions}
    assert verdicts == {2: "mixed", 8: "mixed", 11: "host", 16: "device"}
    text = "\n".join(ins.warnings)
    assert f"{src}:2: this condition on __CUDA_ARCH__ holds code of __host__ __device__ function 'put'" in text
    assert f"{src}:8: this condition on __CUDA_ARCH__ holds #define" in text
    assert "the cpu backend builds it as nvcc's host pass reads it" in text and f"{src}:11" not in text
    lowered = ins.sources[0].read_text().splitlines()
    # (the copy starts with its `#line 1` directive)
    start = lowered.index(next(line for line in lowered if line.startswith("#line 1")))
    line = lambda n: lowered[start + n]   # noqa: E731
    assert line(16) == "#if 1" and line(2) == "#ifdef __CUDA_ARCH__" and line(11) == "#ifndef __CUDA_ARCH__"
    assert line(8) == "#if __CUDA_ARCH__ >= 700"


def test_lowered_conditions_read_as_the_emulated_architecture():
    from instrument.frontend.lower_cpu import arch_directive

    def lowered(text):
        for start, end, new in reversed(arch_directive(text)):
            text = text[:start] + new + text[end:]
        return text
    assert lowered("#if __CUDA_ARCH__ >= 700") == "#if 800 >= 700"
    assert lowered("#  ifndef __CUDA_ARCH__ // x") == "#  if 0 // x"
    assert lowered("#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 800)") == "#elif 1 && (800 < 800)"
    assert lowered("#if defined __CUDA_ARCH__ \\\n  && 1") == "#if 1 \\\n  && 1"


ARCHS = """__global__ void k(int *a, int *b) {
#if __CUDA_ARCH__ >= 1000
  a[threadIdx.x] = 3;
#elif __CUDA_ARCH__ >= 800
  a[threadIdx.x] = 1;
#else
  b[threadIdx.x] = 2;
#endif
}
int main() { return 0; }
"""


def test_the_architecture_read_is_the_builds(tmp_path):
    assert device_view.archs_of(["-gencode", "arch=compute_70,code=sm_70", "--generate-code=arch=compute_90,code=[sm_90,compute_90]",
                                 "-arch=sm_80", "-O2", "-arch", "native"]) == [70, 90, 80]
    src = tmp_path / "archs.cu"
    src.write_text(ARCHS)
    lines = {archs: {a.span.line for a in _program(src, tmp_path / str(archs), False, archs)[1].accesses}
             for archs in ((70,), (90,), (100,))}
    assert lines == {(70,): {7}, (90,): {5}, (100,): {3}}
    ins, _ = _program(src, tmp_path / "two", False, (70, 90), [HiracePlanner(Config())])
    assert f"{src}:2: code of 'k' under a condition on __CUDA_ARCH__ is read as sm_70's device pass reads it; " \
           f"the build compiles sm_90 too" in "\n".join(ins.warnings)


UNREADABLE = """int host_only() { return 1; }
__global__ void k(int *o) {
#ifdef __CUDA_ARCH__
  o[threadIdx.x] = host_only();
#endif
}
int main() { return 0; }
"""


def test_what_stays_unseen_is_named_the_same_way_by_every_tool(tmp_path):
    """The device pass's reading fails (here: a host function called from a kernel): each tool warns through
    device_view.unseen, naming the line and why."""
    src = tmp_path / "unreadable.cu"
    src.write_text(UNREADABLE)
    hirace, prog = _program(src, tmp_path / "h", False, (90,), [HiracePlanner(Config())])
    assert prog.device_arch == 0 and "host_only" in prog.device_error
    head = f"{src}:3: code of 'k' that only nvcc's device pass compiles (#if on __CUDA_ARCH__) is read as the host " \
           f"pass reads it (its reading as the device pass failed: "
    (h,) = [w for w in hirace.warnings if w.startswith(head)]
    assert h.endswith(": accesses written only there are not checked")
    cov = CoveragePlanner()
    _program(src, tmp_path / "c", False, (90,), [cov])
    (c,) = [w for w in cov.skipped if w.startswith(head)]
    assert c.endswith(": items written only there are not counted")


SHARED_INSIDE = """#include <cstdio>
template <bool last>
#if __CUDA_ARCH__ >= 700
__device__ void sum(int *s, int *out) {
  if (threadIdx.x == 0) { int t = 0; for (int i = 0; i < 32; ++i) t += s[i]; out[blockIdx.x] = last ? -t : t; }
}
#else
__device__ void sum(int *s, int *out) {}
#endif
__global__ void k(const int *in, int *out) {
#if __CUDA_ARCH__ >= 700
  __shared__ int s[32];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  sum<false>(s, out);
#endif
}
int main() {
  int *a, *b;
  cudaMalloc(&a, 32 * sizeof(int));
  cudaMalloc(&b, 2 * sizeof(int));
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i;
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  k<<<2, 32>>>(a, b);
  cudaMemcpy(h, b, 2 * sizeof(int), cudaMemcpyDeviceToHost);
  printf("%d %d\\n", h[0], h[1]);
  return 0;
}
"""


def test_the_device_passs_code_runs_on_the_cpu_backend_checked(tmp_path):
    """A template whose `template <...>` stands before the condition, a __shared__ array declared inside
    it: the cpu build runs the device pass's code, every site runs, the output is the device's."""
    from hirace import runner
    from instrument.backends.cpu import CpuBackend
    src = tmp_path / "shared_inside.cu"
    src.write_text(SHARED_INSIDE)
    config = Config()
    built = runner.build([src], CpuBackend(), tmp_path / "b", config)
    assert not built.warnings, built.warnings
    proc, res = runner.execute(built, config, timeout=120)
    assert proc.stdout == "496 496\n" and res is not None and not res.races
    assert (res.sites_total, res.sites_ran) == (4, 4), res.never_ran


@pytest.mark.parametrize("name", ["arch_kernel_body_race.cu", "arch_device_function_race.cu", "shared_inside.cu"])
def test_instrumented_device_pass_code_compiles_with_nvcc(name, tmp_path, nvcc):
    """Edits inside a condition on __CUDA_ARCH__ compile in both of nvcc's passes (sm_90)."""
    src = RACES / name
    if name == "shared_inside.cu":
        src = tmp_path / name
        src.write_text(SHARED_INSIDE)
    for planner in (HiracePlanner(Config()), CoveragePlanner()):
        out = tmp_path / type(planner).__name__
        ins = pipeline.instrument_sources([src], out, [planner], [src.parent], archs=(90,))
        assert any(e for e in ins.programs[0].accesses if e.function in ("k", "put", "sum"))
        res = subprocess.run([str(nvcc), "-std=c++17", "-arch=sm_90", "-c", str(ins.sources[0]), "-o", str(out / "a.o"),
                              f"-I{ROOT / 'runtime' / 'include'}", f"-I{src.parent}",
                              *[f"-D{d}" for d in pipeline.planned_defines([planner])]],
                             capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr[-3000:]
