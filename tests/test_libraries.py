"""Programs that use the toolkit's libraries (CUB, Thrust, libcu++): the parser finds them where
nvcc does, the checks reach what the user's code does with them, and the cpu backend refuses by
name what it cannot run. (tests/cuda/gpu_only holds the labelled CUB and Thrust programs, whose
verdicts the GPU corpus run checks: bench/hirace_gpu_corpus.py.)"""
from __future__ import annotations

import functools
import subprocess
import sys

import pytest

from hirace.config import Config
from hirace.planner import HiracePlanner
from instrument.compile import pipeline
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query
from instrument.compile.toolchain import library_include_dirs

from conftest import CUDA, ROOT

pytestmark = pytest.mark.skipif(not library_include_dirs(), reason="no CUDA toolkit with CUB, Thrust and libcu++")
GPU_ONLY = CUDA / "gpu_only"


@functools.cache
def _program(path):
    """query(parse_file(path)) once a worker: a program that includes CUB or libcu++ takes seconds to parse,
    and the tests below read two of them more than once (the result is only read)."""
    return query(parse_file(path))


def test_cub_thrust_and_libcudacxx_programs_parse_and_name_their_libraries():
    unit = _program(GPU_ONLY / "cub_union_storage_race.cu").unit
    assert {(lib, header) for lib, header, _ in unit.library_includes} == {
        ("CUB", "cub/block/block_load.cuh"), ("CUB", "cub/block/block_scan.cuh")}
    thrust = query(parse_file(GPU_ONLY / "thrust_sort_ok.cu"))
    assert ("Thrust", "thrust::device_vector", "main") in {(lib, name, fn) for lib, name, _, fn in thrust.library_uses}
    assert _program(CUDA / "races" / "lib_atomic_object_ok.cu").lib_atomics


def test_cub_primitives_are_found_with_the_storage_they_were_made_from():
    prog = _program(GPU_ONLY / "cub_union_storage_race.cu")
    text = lambda sp: prog.unit.source(sp.file).text(sp.start, sp.end)   # noqa: E731
    assert [(c.cls, c.level, text(c.storage), c.span.line) for c in prog.collectives] == [
        ("BlockLoad", "block", "tmp.load", 10), ("BlockScan", "block", "tmp.scan", 11)]
    named = query(parse_file(GPU_ONLY / "cub_reduce_twice_race.cu"))   # `Reduce reduce(tmp); reduce.Sum(v)`
    assert [(c.cls, named.unit.source(c.storage.file).text(c.storage.start, c.storage.end)) for c in named.collectives] \
        == [("BlockReduce", "tmp"), ("BlockReduce", "tmp")]


def test_libcudacxx_atomics_are_atomic_sites_of_their_scope():
    prog = _program(CUDA / "races" / "lib_atomic_object_ok.cu")
    text = lambda sp: prog.unit.source(sp.file).text(sp.start, sp.end)   # noqa: E731
    assert [(la.form, la.scope, la.use, la.name, text(la.span)) for la in prog.lib_atomics] == [
        ("object", "block", "write", "store", "seen"), ("object", "block", "rmw", "fetch_add", "seen"),
        ("object", "device", "rmw", "operator++", "hits"), ("object", "block", "read", "load", "seen"),
        ("pointer", "device", "read", "load", "h")]
    assert not [a for a in prog.accesses if a.text in ("seen", "hits")]   # (not plain accesses too)
    ref = query(parse_file(CUDA / "races" / "lib_atomic_ref_ok.cu"))
    assert [(la.form, la.use, la.name) for la in ref.lib_atomics] == [
        ("ref", "rmw", "operator+="), ("ref", "rmw", "operator++"), ("ref", "read", "load")]


@pytest.mark.parametrize("name, says", [
    ("cub_reduce_twice_race.cu", "cub_reduce_twice_race.cu:5:23: kernel k uses cub::BlockReduce: CUB runs on a GPU only"),
    ("thrust_sort_ok.cu", "thrust_sort_ok.cu:12:11: function main uses thrust::device_vector: Thrust runs on a GPU only")])
def test_the_cpu_backend_refuses_cub_and_thrust_by_function_and_line(name, says):
    res = subprocess.run([sys.executable, "-m", "hirace.cli", "run", "--backend", "cpu", str(GPU_ONLY / name)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert res.returncode == 2 and says in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert "use --backend gpu" in res.stderr


def test_instrumented_cub_and_libcudacxx_code_compiles_with_nvcc(tmp_path, nvcc):
    """The runtime's checks of TempStorage and of libcu++ atomics, in code nvcc compiles (the GPU
    runs them: bench/hirace_gpu_corpus.py)."""
    sources = [GPU_ONLY / "cub_union_storage_race.cu", CUDA / "races" / "lib_atomic_object_ok.cu"]
    for src in sources:
        out = tmp_path / src.stem
        planner = HiracePlanner(Config())
        ins = pipeline.instrument_sources([src], out, [planner], include_dirs=[CUDA / "races"])
        text = ins.sources[0].read_text()
        # (libcu++'s seq_cst operations: a unit that follows synchronisation through memory, lib_sync)
        assert "::hirace::Collective(&(tmp.load)" in text or "::hirace::lib_sync(&(seen)" in text, text[:2000]
        res = subprocess.run([str(nvcc), "-std=c++17", "-arch=sm_90", "-c", str(ins.sources[0]), "-o", str(out / "a.o"),
                              *[f"-I{d}" for d in ins.include_dirs], f"-I{ROOT / 'runtime' / 'include'}",
                              *[f"-D{d}" for d in pipeline.planned_defines([planner])]],
                             capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr[-3000:]


def _hirace_run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "hirace.cli", "run", "--backend", "cpu", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


def test_the_cpu_backend_refuses_graph_updates_and_libcudacxx_waits_by_name(tmp_path):
    graph = tmp_path / "graph.cu"   # (graphs run on the cpu backend: cudaemu/graphs.h; updating one does not)
    graph.write_text("__global__ void k(int *a) { a[threadIdx.x] = 1; }\n"
                     "int main() {\n  cudaGraphExec_t e = 0;\n  cudaGraphExecUpdate(e, 0, (cudaGraphExecUpdateResultInfo *)0);\n"
                     "  return 0;\n}\n")
    res = _hirace_run(graph)
    assert res.returncode == 2 and f"{graph}:4:3: cudaGraphExecUpdate is not emulated by the cpu backend" in res.stderr, \
        res.stderr
    wait = tmp_path / "wait.cu"
    wait.write_text("#include <cuda/barrier>\n"
                    "__global__ void k(int *a) {\n"
                    "  __shared__ cuda::barrier<cuda::thread_scope_block> bar;\n"
                    "  if (threadIdx.x == 0) init(&bar, blockDim.x);\n  __syncthreads();\n"
                    "  a[threadIdx.x] = 1;\n  bar.arrive_and_wait();\n}\n"
                    "int main() { int *a; cudaMalloc(&a, 256); k<<<1, 64>>>(a); return 0; }\n")
    res = _hirace_run(wait)
    assert res.returncode == 2 and f"{wait}:3:20: k uses cuda::barrier, which waits as the host waits" in res.stderr, \
        res.stderr
    # for the gpu backend it is instrumented, and what hirace does not follow of it is said
    res = subprocess.run([sys.executable, "-m", "hirace.cli", "instrument", "-o", str(tmp_path / "out"), str(wait)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0 and (f"{wait}:3:20: k synchronises through cuda::barrier, whose arrive and wait hirace "
                                    f"does not follow") in res.stderr, res.stderr


def test_runtime_api_launches_are_bracketed_even_inside_a_macro(tmp_path, nvcc):
    src = tmp_path / "coop.cu"
    src.write_text('#include <cstdio>\n#define CK(x) do { if ((x) != cudaSuccess) printf("failed\\n"); } while (0)\n'
                   "__global__ void k(int *a) { a[threadIdx.x] = threadIdx.x; }\n"
                   "int main() {\n  int *a;\n  CK(cudaMalloc(&a, 256));\n  void *args[] = {&a};\n"
                   "  CK(cudaLaunchCooperativeKernel(\n      (void *)k, dim3(1), dim3(64), args));\n"
                   "  cudaLaunchKernel((const void *)k, 1, 64, args, 0, 0);\n  return cudaDeviceSynchronize();\n}\n")
    planner = HiracePlanner(Config())
    ins = pipeline.instrument_sources([src], tmp_path / "out", [planner])
    text = ins.sources[0].read_text()
    assert text.count('::hirace::host::before_launch((const void *)(') == 2 and \
        text.count("::hirace::host::launched(cudaLaunch") == 2, text
    res = subprocess.run([str(nvcc), "-std=c++17", "-arch=sm_90", "-c", str(ins.sources[0]), "-o", str(tmp_path / "a.o"),
                          f"-I{ROOT / 'runtime' / 'include'}", *[f"-D{d}" for d in pipeline.planned_defines([planner])]],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]


def test_what_the_parser_cannot_see_is_named_and_what_nvcc_takes_parses(tmp_path):
    src = tmp_path / "arch.cu"
    src.write_text("__global__ void k(float *o) {\n"
                   "  __shared__ alignas(16) float tile[4][8];\n"
                   "  tile[0][threadIdx.x % 8] = 1;\n"
                   "#if __CUDA_ARCH__ >= 700\n  o[threadIdx.x] = tile[0][0];\n#endif\n}\n"
                   "int main() { return 0; }\n")
    ins = pipeline.instrument_sources([src], tmp_path / "out", [HiracePlanner(Config())])
    # the code only nvcc's device pass compiles is read as that pass reads it (device_view.py: what stays
    # unseen is named, tests/test_device_view.py), its read of tile checked
    assert not ins.warnings, ins.warnings
    text = ins.sources[0].read_text()
    assert "__shared__ alignas(16) float tile[4][8];" in text and "::hirace::rd(&(tile[0][0])" in text


def test_a_host_source_and_a_source_other_sources_include_share_instrumented_headers(tmp_path):
    """A .cpp that includes a header whose __host__ __device__ function the kernel's instrumentation
    changed builds beside it; a .cu that other .cu files #include and that is built by itself keeps
    its own prelude (the layout of cuda-samples' eigenvalues)."""
    (tmp_path / "util.h").write_text("#pragma once\ntemplate <class T> __host__ __device__ T smaller(const T &a, const T &b) "
                                     "{ return a < b ? a : b; }\n")
    (tmp_path / "shared.cu").write_text('#ifndef SHARED_CU\n#define SHARED_CU\n#include "util.h"\n'
                                        "template <class T> __device__ T pick(const T *v, int i) { return smaller(v[i], v[i + 1]); }\n"
                                        "#endif\n")
    (tmp_path / "kernel.cu").write_text('#include <cstdio>\n#include "shared.cu"\nint host_min(int, int);\n'
                                        "__global__ void k(const int *v, int *out) { out[threadIdx.x] = pick(v, threadIdx.x); }\n"
                                        "int main() {\n  int *v, *out;\n  cudaMallocManaged(&v, 65 * sizeof(int));\n"
                                        "  cudaMallocManaged(&out, 64 * sizeof(int));\n"
                                        "  for (int i = 0; i < 65; ++i) v[i] = (i * 7) % 13;\n"
                                        "  k<<<1, 64>>>(v, out);\n  cudaDeviceSynchronize();\n"
                                        '  printf("%d %d\\n", out[5], host_min(out[5], 3));\n  return 0;\n}\n')
    (tmp_path / "host.cpp").write_text('#include "util.h"\nint host_min(int a, int b) { return smaller(a, b); }\n')
    res = _hirace_run(tmp_path / "kernel.cu", tmp_path / "shared.cu", tmp_path / "host.cpp")
    assert res.returncode == 0 and "3 3" in res.stdout and "no data races found" in res.stderr, res.stderr[-3000:]
