"""Constructs of public CUDA programs, in small programs of our own (tests/cuda/realworld/):
helper headers guarded by the runtime's include guards, allocations inside stringizing macros,
the C headers nvcc brings in implicitly, device printf/math, cooperative groups, host-only C++
and C sources among the sources, device attributes; each parses, runs on the cpu backend with
the plain program's output, and hirace reports exactly the labelled races."""
import json
import re

import pytest

from conftest import CUDA
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query

RW = CUDA / "realworld"

# helpers_race.cu and host_alloc_main.cu run under hirace in two tests each: compiled by the first
pytestmark = pytest.mark.usefixtures("module_build_cache")


def _labelled(*files) -> set[tuple[str, int]]:
    return {(f.name, i) for f in files for i, line in enumerate(f.read_text().splitlines(), 1)
            if line.rstrip().endswith("// RACE") or "// RACE:" in line}


def _hirace(run_cli, tmp_path, *files):
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--format", "json", "--output", out, *files)
    doc = json.loads(out.read_text()) if out.is_file() else None
    return r, doc


@pytest.mark.parametrize("files,stdout", [
    (["helpers_race.cu"], "kernel sees n=256\nsum 605.355 max 1\n"),
    (["cg_reduce.cu"], "528 1552 2576 3472 4624 5648 6672 7568 | 32896\n"),
    (["cg_race.cu"], None),
    (["host_alloc_main.cu", "host_alloc.cpp"], "count 1\n"),
    (["c_main.cu", "c_helper.c"], "62\n"),
    (["wide_tiles.cu"], "762 771 1533\n762\n"),
])
def test_real_program_constructs_run_with_their_own_output_and_exact_races(run_cli, tmp_path, files, stdout):
    srcs = [RW / f for f in files]
    plain = run_cli("instrument.run", "--backend", "cpu", *srcs)
    assert plain.returncode == 0, plain.stderr
    if stdout is not None:
        assert plain.stdout == stdout
    r, doc = _hirace(run_cli, tmp_path, *srcs)
    assert r.stdout == plain.stdout
    found = {(re.sub(r".*/", "", x["site"]["file"]), x["site"]["line"]) for x in doc["races"]}
    want = _labelled(*srcs)
    assert {line for _, line in found} <= {line for _, line in want} | {10}   # cg_race: the write side too
    assert {f for f, _ in want} <= {f for f, _ in found}
    assert r.returncode == (1 if want else 0), r.stderr


def test_allocations_inside_macros_are_tracked_and_named(run_cli, tmp_path):
    r, doc = _hirace(run_cli, tmp_path, RW / "helpers_race.cu")
    assert r.returncode == 1
    [race] = doc["races"]
    assert race["variable"] == "d_total" and race["kernel"] == "count_racy"
    assert not [w for w in doc["summary"]["warnings"] if "not instrumented" in w]
    # an allocation made in a host-only .cpp is tracked too: its race is found
    r, doc = _hirace(run_cli, tmp_path, RW / "host_alloc_main.cu", RW / "host_alloc.cpp")
    assert [(x["variable"], x["kernel"]) for x in doc["races"]] == [("p", "bump")]


def test_a_stringizing_check_macro_prints_the_programs_own_text(run_cli, tmp_path):
    src = tmp_path / "fail.cu"
    src.write_text('#include <cuda_runtime.h>\n#include "check_helpers.h"\n'
                   "__global__ void k(int *a) { a[threadIdx.x] = 1; }\n"
                   "int main() { int *d; checkErrors(cudaMalloc(&d, 64)); k<<<1, 16>>>(d);\n"
                   "  checkErrors(cudaSetDevice(7)); return 0; }\n")
    plain = run_cli("instrument.run", "--backend", "cpu", "-I", RW, src)
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "-I", RW, src)
    assert plain.returncode == 1 and r.returncode == 2
    line = next(ln for ln in plain.stderr.splitlines() if ln.startswith("CUDA error"))
    assert '"cudaSetDevice(7)"' in line and "cudaErrorInvalidDevice" in line
    assert line in r.stderr


GROUP_SYNCS = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
PLAIN_SYNCS = ("__device__ void f(cg::thread_group g) { g.sync(); }\n"
               "__global__ void k() {\n  cg::thread_block b = cg::this_thread_block();\n"
               "  b.sync();\n  cg::sync(b);\n  auto t = cg::tiled_partition<16>(b);\n  t.sync();\n"
               "  cg::sync(t);\n  f(b);\n  cg::coalesced_group c = cg::coalesced_threads();\n  c.sync();\n}\n")
# in a template a group's type may depend on its parameters (libclang leaves the call unresolved): the
# scope comes from the declared type or the call that made the group; a user's own sync() is no barrier
TEMPLATE_SYNCS = ("struct Lock { __device__ void sync() {} };\n"
                  "template <unsigned B, unsigned W, class L> __global__ void k(int *a, L l) {\n"
                  "  __shared__ cg::block_tile_memory<B> m;\n  auto b = cg::this_thread_block(m);\n"
                  "  auto t = cg::tiled_partition<W>(b);\n  cg::thread_block_tile<W> u = cg::tiled_partition<W>(b);\n"
                  "  cg::sync(b);\n  b.sync();\n  t.sync();\n  u.sync();\n  cg::sync(t);\n  l.sync();\n"
                  "  atomicAdd(&a[B], W);\n}\n"
                  "__global__ void n() { cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());\n"
                  "  w.sync(); }\n")


# (line, scope, lanes): a tile's lanes are aligned, a coalesced group's any; a plain thread_group's
# are aligned unless the unit makes coalesced groups (hirace's planner)
@pytest.mark.parametrize("body,want,atomics,coalesced", [
    (PLAIN_SYNCS, [(3, "group", "dynamic"), (6, "block", ""), (7, "block", ""), (9, "warp", "tile"),
                   (10, "warp", "tile"), (13, "warp", "coalesced")], [], True),
    (TEMPLATE_SYNCS, [(9, "block", ""), (10, "block", ""), (11, "group", "dynamic"), (12, "group", "dynamic"),
                      (13, "group", "dynamic"), (18, "group", "tile")], ["atomicAdd"], False),
], ids=["plain", "templates"])
def test_cooperative_group_syncs_are_barriers_of_their_scope(tmp_path, body, want, atomics, coalesced):
    src = tmp_path / "g.cu"
    src.write_text(GROUP_SYNCS + body)
    prog = query(parse_file(src))
    assert [(b.span.line, b.scope, b.lanes) for b in prog.barriers] == want
    assert all(b.group is not None for b in prog.barriers if b.scope in ("group", "warp"))
    assert [a.name for a in prog.atomics] == atomics
    assert prog.coalesced_groups == coalesced


def test_grid_sync_numbers_blocks_on_in_a_cooperative_launch_and_compiles_with_nvcc(tmp_path, nvcc):
    """grid.sync() orders the whole grid (checked on a GPU: bench/hirace_gpu_corpus.py runs
    tests/cuda/gpu_only/grid_sync_*.cu); here: the hooks hirace plans, in code nvcc compiles."""
    import subprocess
    from hirace.config import Config
    from hirace.planner import HiracePlanner
    from instrument.compile import pipeline
    src = CUDA / "gpu_only" / "grid_sync_ok.cu"
    planner = HiracePlanner(Config())
    ins = pipeline.instrument_sources([src], tmp_path, [planner], include_dirs=[CUDA / "races"])
    text = ins.sources[0].read_text()
    assert text.count("(grid.sync(), ::hirace::after_grid_barrier())") == 2
    assert re.search(r"before_launch\(\(const void \*\)\(\(void \*\)k\), \"k\", .*, true\), "
                     r"::hirace::host::launched\(cudaLaunchCooperativeKernel", text), text
    res = subprocess.run([str(nvcc), "-std=c++17", "-arch=sm_90", "-c", str(ins.sources[0]), "-o", str(tmp_path / "a.o"),
                          *[f"-I{d}" for d in ins.include_dirs], f"-I{CUDA.parents[1] / 'runtime' / 'include'}",
                          *[f"-D{d}" for d in pipeline.planned_defines([planner])]],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]


def test_grid_synchronisation_is_refused_by_name_on_the_cpu_backend(run_cli):
    r = run_cli("instrument.run", "--backend", "cpu", RW / "grid_sync.cu")
    assert r.returncode == 2
    assert "grid_sync.cu:3:48: grid-wide synchronisation (grid_group::sync) cannot run on the cpu backend" in r.stderr


def test_the_stand_in_headers_parse_what_nvcc_includes_implicitly(tmp_path):
    src = tmp_path / "implicit.cu"
    src.write_text("__global__ void k(float *a, double *b) {\n"
                   "  a[0] = sqrtf(fminf(a[1], 2.f)) + __expf(a[2]) + erfinvf(0.5f) + normcdff(a[3]);\n"
                   "  b[0] = fabs(b[1]) + pow(b[2], 2.0) + rsqrt(b[3]);\n"
                   "  printf(\"%f\\n\", a[0]); assert(a[0] > 0); unsigned u = umin(3u, __umul24(2u, 3u));\n"
                   "  int m = max(1, 2u) + min(1.0f, 2.0); (void)u; (void)m;\n}\n"
                   "int main() { int *p = (int *)malloc(4 * INT_MAX / INT_MAX); memset(p, 0, 4);\n"
                   "  cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0); int v = 0;\n"
                   "  cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, 0);\n"
                   "  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); float *h;\n"
                   "  cudaHostAlloc(&h, 16, cudaHostAllocMapped); cudaHostGetDevicePointer(&p, h, 0);\n"
                   "  printf(\"%s %d %d %s\\n\", prop.name, prop.clockRate > 0, v == cudaComputeModeDefault,\n"
                   "         cudaGetErrorName(cudaErrorNotReady)); free(p); return 0; }\n")
    parse_file(src)   # raises on any error


def test_device_attributes_agree_with_properties_and_errors_have_their_names(run_cli, tmp_path):
    src = tmp_path / "attrs.cu"
    src.write_text("#include <cstdio>\nint main() { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);\n"
                   "  int sm = 0, w = 0, mj = 0, mode = -1; cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0);\n"
                   "  cudaDeviceGetAttribute(&w, cudaDevAttrWarpSize, 0);\n"
                   "  cudaDeviceGetAttribute(&mj, cudaDevAttrComputeCapabilityMajor, 0);\n"
                   "  cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0);\n"
                   "  printf(\"%d %d %d %d %s|%s\\n\", sm == p.multiProcessorCount, w == p.warpSize, mj == p.major,\n"
                   "         mode, cudaGetErrorName(cudaErrorIllegalAddress), cudaGetErrorString(cudaErrorIllegalAddress));\n"
                   "  return 0; }\n")
    r = run_cli("instrument.run", "--backend", "cpu", src)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "1 1 1 0 cudaErrorIllegalAddress|an illegal memory access was encountered\n"


def test_device_clock_counts_device_cycles(run_cli, tmp_path):
    """A kernel that spins for clockRate kHz x 5 ms ends after about 5 ms, as on a GPU."""
    src = tmp_path / "spin.cu"
    src.write_text("#include <cstdio>\n__global__ void spin(clock_t cycles) { clock_t t0 = clock();\n"
                   "  while (clock() - t0 < cycles) {} }\n"
                   "int main() { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);\n"
                   "  spin<<<1, 1>>>((clock_t)(5 * p.clockRate)); cudaDeviceSynchronize(); printf(\"done\\n\"); }\n")
    r = run_cli("instrument.run", "--backend", "cpu", "--timeout", "60", src)
    assert r.returncode == 0 and r.stdout == "done\n", r.stderr


def test_if_without_braces_is_covered_exactly(run_cli, tmp_path):
    (tmp_path / "prog.cu").write_text(
        "#include <cstdio>\n__global__ void k(int *a, int n) {\n  int i = threadIdx.x;\n"
        "  if (i < n) a[i] = 1; else a[i] = 2;\n  if (i % 2) a[i] += 10;\n  else\n    a[i] += 20;\n"
        "  for (int j = 0; j < 2; ++j) if (j) a[i] += 100; else a[i] -= 1;\n}\n"
        "int main() { int *d; cudaMallocManaged(&d, 64 * 4); k<<<1, 64>>>(d, 32); cudaDeviceSynchronize();\n"
        "  long s = 0; for (int i = 0; i < 64; ++i) s += d[i]; printf(\"%ld\\n\", s); }\n")
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["prog.cu"]\n[[test]]\nname = "t"\nstdout = "7392\\n"\n')
    out = tmp_path / "cov.json"
    r = run_cli("cltestcheck.cli", "coverage", "--backend", "cpu", "--suite", tmp_path, "--json", out)
    assert r.returncode == 0, r.stderr
    assert "t: passed" in r.stdout
    doc = json.loads(out.read_text())
    assert doc["total"]["branches"] == {"covered": 6, "total": 6, "percent": 100.0}
    arms = sorted((x["label"].rsplit(": ", 1)[1], x["covered"]) for x in doc["items"] if x["category"] == "branch")
    assert arms == [("else", True)] * 3 + [("then", True)] * 3


@pytest.mark.parametrize("order", ["asc", "desc", "random"])
def test_blocks_that_wait_for_other_blocks_interleave(run_cli, order):
    r = run_cli("instrument.run", "--backend", "cpu", "--timeout", "60", RW / "blocks_wait.cu",
                env={"CUDAEMU_BLOCK_ORDER": order, "CUDAEMU_SEED": "3"})
    assert r.returncode == 0, r.stderr
    assert r.stdout == "120\n7\n"


@pytest.mark.parametrize("args,message", [
    (["never"], "deadlock across blocks (every started block spins, waiting for memory no block changes)"),
    (["65"], "blocks wait for each other beyond the 64 blocks the cpu backend runs at once"),
])
def test_blocks_spinning_forever_are_a_clear_fault_not_a_hang(run_cli, args, message):
    r = run_cli("instrument.run", "--backend", "cpu", "--timeout", "60", RW / "blocks_spin_forever.cu", "--", *args)
    assert r.returncode == 2 and message in r.stderr and "timed out" not in r.stderr
    r = run_cli("instrument.run", "--backend", "cpu", "--timeout", "60", RW / "blocks_spin_forever.cu", "--", "64")
    assert r.returncode == 0 and r.stdout == "done 64\n"


def test_half_precision_computes_as_binary16(run_cli, tmp_path):
    r = run_cli("instrument.run", "--backend", "cpu", RW / "half.cu")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "683.0000 0.09997559 inf\n"   # 0.1 rounds to 0x2e66; 131008 overflows binary16
    r, doc = _hirace(run_cli, tmp_path, RW / "half.cu")
    assert r.returncode == 0 and doc["races"] == [] and r.stdout == "683.0000 0.09997559 inf\n"


@pytest.mark.parametrize("name,stdout", [
    ("coalesced.cu", "22 189\n0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 \n"),
    ("odd_launches.cu", "7 5 255 1 30\n"),
    ("labeled.cu", "26 26 26 26 24 20\n"),   # (a leader per bucket in each of the 4 warps)
])
def test_more_launch_and_group_forms_run_clean_with_their_own_output(run_cli, tmp_path, name, stdout):
    def same(out: str) -> bool:   # which warp takes its slots first is the schedule's choice
        return sorted(out.split()) == sorted(stdout.split()) and out.splitlines()[0] == stdout.splitlines()[0]
    for env in ({}, {"CUDAEMU_SEED": "7"}):
        r = run_cli("instrument.run", "--backend", "cpu", RW / name, env=env)
        assert r.returncode == 0 and same(r.stdout), r.stderr
    assert r.stdout != stdout or name != "coalesced.cu"   # seed 7 runs the second warp first
    r, doc = _hirace(run_cli, tmp_path, RW / name)   # 3-byte elements share no shadow word: no false race
    assert r.returncode == 0 and doc["races"] == [] and r.stdout == stdout, r.stderr


def test_programs_see_the_same_argv0_under_every_tool(run_cli, tmp_path):
    src = tmp_path / "me.cu"
    src.write_text('#include <cstdio>\n__global__ void k() {}\nint main(int c, char **v) { k<<<1, 1>>>();\n'
                   '  cudaDeviceSynchronize(); printf("%s\\n", v[0]); }\n')
    plain = run_cli("instrument.run", "--backend", "cpu", src)
    r = run_cli("hirace.cli", "run", "--backend", "cpu", src)
    assert plain.stdout == r.stdout == "./prog\n"


def test_kernel_templates_launched_from_templates_and_their_byte_elements(run_cli, tmp_path):
    """alignedTypes-style: an access whose size depends on a template argument may be one byte, so
    the shadow covers bytes and neighbours never share a word (no false race)."""
    r = run_cli("instrument.run", "--backend", "cpu", RW / "template_copy.cu")
    assert r.returncode == 0 and r.stdout == "43 43 43\n", r.stderr
    r, doc = _hirace(run_cli, tmp_path, RW / "template_copy.cu")
    assert r.returncode == 0 and doc["races"] == [] and doc["summary"]["granularity_bytes"] == 1
    assert doc["summary"]["launches"] == 3


def test_hirace_gpu_builds_keep_every_block_size_launchable(tmp_path, monkeypatch):
    """matrixMul's 1024-thread kernel did not launch under hirace on an H100 (too many registers once
    instrumented): GPU builds cap registers at 64 a thread, and the runtime names a launch that fails."""
    from hirace import runner
    from hirace.config import Config
    from instrument.backends.gpu import GpuBackend
    seen = []
    monkeypatch.setattr(GpuBackend, "build", lambda self, req: seen.append(req) or req.output)
    runner.build([RW / "cg_race.cu"], GpuBackend(), tmp_path, Config())
    assert "-maxrregcount=64" in seen[0].flags
    host = (RW.parents[2] / "runtime" / "include" / "hirace" / "host_launch.h").read_text()   # (after_launch)
    assert "cudaErrorLaunchOutOfResources" in host and "could not be launched under hirace" in host
