"""Projects checked as they are built: a CMake project and a Makefile project of our own
(tests/projects/), built through the compiler launcher hirace-cc on the cpu backend, run by their own
test commands under `hirace run -- COMMAND`, and run by hand (a program reports by itself)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, PROJECTS, build_cmake_app, build_make_app, needs_project_tools, project_env, run_in
from instrument.compile import pipeline
from instrument.backends.cpu import CpuBackend
from instrument.compile.toolchain import nvcc_include_dirs

HIRACE_CC = BIN / "hirace-cc"
HIRACE = BIN / "hirace"

needs_tools = needs_project_tools


def _env(**more) -> dict:
    return project_env(("HIRACE_",), **more)


CPU = _env(HIRACE_BACKEND="cpu")


def _run(cmd, cwd, env=CPU, timeout=300) -> subprocess.CompletedProcess:
    return run_in(cmd, cwd, env, timeout)


@pytest.fixture(scope="module")
def cmake_build(tmp_path_factory) -> Path:
    """tests/projects/cmake_app configured with the launchers and built on the cpu backend."""
    return build_cmake_app(tmp_path_factory.mktemp("cmake_app") / "build", HIRACE_CC, CPU)


@pytest.fixture(scope="module")
def make_build(tmp_path_factory) -> Path:
    """tests/projects/make_app copied and built with make NVCC="hirace-cc nvcc" on the cpu backend."""
    return build_make_app(tmp_path_factory.mktemp("make_app") / "make_app", "hirace-cc", CPU)


@needs_tools
def test_ctest_under_hirace_reports_the_race_with_the_tests_own_output(cmake_build):
    res = _run([HIRACE, "run", "--format", "json", "--", "ctest", "--output-on-failure"], cmake_build)
    assert res.returncode == 1, res.stderr
    assert "100% tests passed, 0 tests failed out of 2" in res.stdout   # the tests' verdicts are the plain ones
    report = json.loads(res.stderr[res.stderr.index("{"):])
    races = report["races"]
    assert {(Path(r["site"]["file"]).name, r["site"]["line"], r["kernel"]) for r in races} == {
        ("histogram.cu", 9, "histogram")}
    assert races[0]["site"]["file"] == str(PROJECTS / "cmake_app" / "lib" / "histogram.cu")
    assert report["summary"]["launches"] == 2   # scale's launch and histogram's, from two processes


@needs_tools
def test_a_race_free_run_of_the_project_passes_with_its_plain_output(cmake_build):
    res = _run([HIRACE, "run", "--", "./app", "scale", "300"], cmake_build)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "scale: sum 134550\n"   # 3 * (0 + ... + 299)
    assert "no data races found (1 launch checked on the cpu backend)" in res.stderr
    # what it did not check: the histogram unit's sites, which this run never reached
    assert "2 of 7 instrumented access sites ran; never ran on this input (not checked): " in res.stderr
    assert "lib/histogram.cu:7" in res.stderr


@needs_tools
def test_a_built_program_reports_by_itself(cmake_build):
    racy = _run(["./app", "histogram", "300"], cmake_build)
    assert racy.returncode == 66, racy.stderr   # HIRACE_EXITCODE's default
    assert racy.stdout == "38 38 38 38 37 37 37 37 \n"
    assert "hirace: data race in kernel `histogram`" in racy.stderr
    assert f"{PROJECTS / 'cmake_app' / 'lib' / 'histogram.cu'}:9:14" in racy.stderr
    kept = _run(["./app", "histogram", "300"], cmake_build, env=dict(CPU, HIRACE_EXITCODE="0"))
    assert kept.returncode == 0 and "hirace: data race" in kept.stderr
    clean = _run(["./app", "scale", "300"], cmake_build)
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "scale: sum 134550\n", "")


@needs_tools
def test_logs_in_a_directory_one_per_process(cmake_build, tmp_path):
    env = dict(CPU, HIRACE_LOG_DIR=str(tmp_path))
    for _ in range(2):
        assert _run(["./app", "histogram", "100"], cmake_build, env=env).returncode == 0   # (a log asked for: no self report)
    logs = sorted(tmp_path.glob("hirace-*.jsonl"))
    assert len(logs) == 2
    from hirace.results import collect
    reps = [collect(p, None) for p in logs]
    assert all(len(r.races) == 1 and r.races[0].kernel == "histogram" for r in reps)


@needs_tools
def test_the_build_tracks_headers_by_their_own_names(cmake_build):
    """The dependency files name the user's files (not the launcher's scratch copies): touching a
    header rebuilds the units that include it, and nothing else is out of date."""
    deps = _run(["ninja", "-t", "deps"], cmake_build).stdout
    assert "vecops.h" in deps and "hirace-cc-" not in deps
    assert "no work to do" in _run(["ninja", "-n"], cmake_build).stdout


@needs_tools
def test_make_run_under_hirace(make_build):
    res = _run([HIRACE, "run", "--format", "json", "--", "make", "run"], make_build)
    assert res.returncode == 1, res.stderr
    report = json.loads(res.stderr[res.stderr.index("{"):])
    lines = {(Path(r["site"]["file"]).name, r["site"]["line"]) for r in report["races"]}
    assert lines == {("transpose.cu", 10), ("transpose.cu", 12)}   # stencil and boundary are race-free
    assert report["summary"]["launches"] == 3
    # the output is the plain build's (the same sources built unchanged on the cpu backend)
    stencil = _plain(make_build, ["main.cpp", "stencil.cu", "boundary.cu"], ["1000"])
    transpose = _plain(make_build, ["transpose.cu"], ["64"])
    assert stencil in res.stdout and transpose in res.stdout


def _plain(work: Path, sources, args) -> str:
    built = pipeline.build([work / s for s in sources], CpuBackend(), work / ".plain" / sources[0],
                           include_dirs=[work / "common"], defines=["TILE=32"])
    out = CpuBackend().run(built.exe, args)
    assert out.returncode == 0, out.stderr
    return out.stdout


@needs_tools
def test_a_command_that_runs_nothing_instrumented_is_not_a_pass(tmp_path):
    res = _run([HIRACE, "run", "--", "true"], tmp_path)
    assert res.returncode == 2
    assert "no instrumented kernel ran" in res.stderr and "hirace-cc" in res.stderr
    assert _run([HIRACE, "run", "--allow-unchecked", "--", "true"], tmp_path).returncode == 0
    failing = _run([HIRACE, "run", "--allow-unchecked", "--", "sh", "-c", "exit 3"], tmp_path)
    assert failing.returncode == 2 and "the command exited with status 3" in failing.stderr
    missing = _run([HIRACE, "run", "--", "./no-such-program"], tmp_path)
    assert missing.returncode == 2 and "no such command" in missing.stderr and "Traceback" not in missing.stderr


@needs_tools
def test_a_unit_the_launcher_cannot_check_stops_the_build_by_name(tmp_path):
    (tmp_path / "dp.cu").write_text(
        "__global__ void child(int *a) { a[0] = 1; }\n"
        "__global__ void parent(int *a) { child<<<1, 1>>>(a); }\n")
    res = _run([HIRACE_CC, "nvcc", "-c", "dp.cu", "-o", "dp.o"], tmp_path)
    assert res.returncode == 2
    assert "dp.cu:2" in res.stderr and "dynamic parallelism" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "dp.o").exists()
    (tmp_path / "bad.cu").write_text("__global__ void k(int *a) { a[0] = }\n")
    bad = _run([HIRACE_CC, "nvcc", "-c", "bad.cu", "-o", "bad.o"], tmp_path)
    assert bad.returncode != 0 and "bad.cu:1" in bad.stderr and not (tmp_path / "bad.o").exists()


@needs_tools
def test_a_cpu_link_refuses_an_object_built_against_the_toolkit(tmp_path):
    (tmp_path / "m.cpp").write_text("#include <cuda_runtime.h>\nint main() { void *p; return cudaMalloc(&p, 4); }\n")
    toolkit = nvcc_include_dirs()[0][0]
    assert _run(["g++", f"-I{toolkit}", "-c", "m.cpp", "-o", "m.o"], tmp_path).returncode == 0
    res = _run([HIRACE_CC, "g++", "m.o", "-o", "app"], tmp_path)
    assert res.returncode == 2
    assert "m.o calls the CUDA runtime (cudaMalloc)" in res.stderr and "CMAKE_CXX_COMPILER_LAUNCHER" in res.stderr


@needs_tools
def test_launcher_edges(tmp_path):
    """Lines and files a build gives the launcher: a unit whose last line is a comment without a line
    break (its site table must still register), compile-and-link with -x cu, a dependency file named
    attached (-MFm.d), a constexpr device function (not checked, said so), a log directory that is
    a file (the program must not hang at exit)."""
    (tmp_path / "t.cu").write_text("#include <cstdio>\n"
                                   "constexpr __device__ int twice(int v) { return 2 * v; }\n"
                                   "__global__ void k(int *a) { a[0] = twice(threadIdx.x); }\n"
                                   "int main() { int *d; cudaMalloc(&d, 4); k<<<1, 32>>>(d); cudaDeviceSynchronize();\n"
                                   "  printf(\"ok\\n\"); return 0; }\n// end")
    built = _run([HIRACE_CC, "nvcc", "-x", "cu", "-MD", "t.cu", "-o", "app"], tmp_path)
    assert built.returncode == 0, built.stderr
    run = _run(["./app"], tmp_path)
    assert run.returncode == 66 and "t.cu:3:" in run.stderr and run.stdout == "ok\n"
    assert _run(["./app"], tmp_path, env=dict(CPU, HIRACE_LOG_DIR=str(tmp_path / "t.cu")), timeout=60).returncode == 0
    (tmp_path / "m.cpp").write_text("#include <cuda_runtime.h>\nint main() { void *p; return cudaMalloc(&p, 4); }\n")
    dep = _run([HIRACE_CC, "g++", "-MMD", "-MFm.d", "-c", "m.cpp", "-o", "m.o"], tmp_path)
    assert dep.returncode == 0, dep.stderr
    assert "hirace-cc-" not in (tmp_path / "m.d").read_text() and "m.cpp" in (tmp_path / "m.d").read_text()
    (tmp_path / "c.cu").write_text("constexpr __device__ int get(const int *a, int i) { return a[i]; }\n"
                                   "__global__ void k(const int *a, int *b) { b[threadIdx.x] = get(a, threadIdx.x); }\n")
    ce = _run([HIRACE_CC, "nvcc", "-c", "c.cu", "-o", "c.o"], tmp_path)
    assert ce.returncode == 0 and "constexpr function 'get' are not checked" in ce.stderr, ce.stderr


@needs_tools
def test_a_cpp_compiled_as_cuda_is_checked(tmp_path):
    """`nvcc -x cu k.cpp` (CMake's LANGUAGE CUDA on a .cpp, Makefiles that keep .cpp names): the unit
    is CUDA whatever its suffix, so its kernels are checked, its header found beside it."""
    (tmp_path / "util.h").write_text("__device__ inline int twice(int v) { return 2 * v; }\n")
    (tmp_path / "k.cpp").write_text("#include <cstdio>\n#include \"util.h\"\n"
                                    "__global__ void k(int *a) { a[0] = twice(threadIdx.x); }\n"
                                    "int main() { int *d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); cudaDeviceSynchronize();\n"
                                    "  printf(\"ok\\n\"); return 0; }\n")
    built = _run([HIRACE_CC, "nvcc", "-x", "cu", "-c", "k.cpp", "-o", "k.o"], tmp_path)
    assert built.returncode == 0, built.stderr
    assert _run([HIRACE_CC, "nvcc", "k.o", "-o", "app"], tmp_path).returncode == 0
    run = _run(["./app"], tmp_path)
    assert run.returncode == 66 and run.stdout == "ok\n" and "k.cpp:3:29 `a[0]`" in run.stderr, run.stderr


def _database(root: Path, entries) -> Path:
    build = root / "build"
    build.mkdir(parents=True, exist_ok=True)
    (build / "compile_commands.json").write_text(json.dumps(entries))
    return build


def test_a_compilation_database_gives_each_source_its_flags(tmp_path):
    """-p BUILD, as clang tools read it: the CUDA units of compile_commands.json, their -I and -D
    relative to the entry's directory; a host .cpp entry is no source of hirace's."""
    (tmp_path / "src" / "inc").mkdir(parents=True)
    (tmp_path / "src" / "inc" / "cfg.h").write_text("#define N 64\n")
    (tmp_path / "src" / "k.cu").write_text("#include <cstdio>\n#include \"cfg.h\"\n"
                                           "__global__ void k(int *a) { a[SLOT] = threadIdx.x; }\n"
                                           "int main() { int *d; cudaMalloc(&d, N * sizeof(int)); k<<<1, N>>>(d);\n"
                                           "  cudaDeviceSynchronize(); printf(\"ok\\n\"); return 0; }\n")
    build = _database(tmp_path, [
        {"directory": str(tmp_path / "build"), "file": "../src/k.cu",
         "command": "/usr/local/cuda/bin/nvcc -I../src/inc -DSLOT=0 -o k.o -c ../src/k.cu"},
        {"directory": str(tmp_path / "build"), "file": "../src/main.cpp",
         "arguments": ["g++", "-c", "../src/main.cpp", "-o", "m.o"]}])
    run = _run([HIRACE, "run", "--backend", "cpu", "--format", "json", "--output", "r.json", "-p", build], tmp_path)
    assert run.returncode == 1, run.stderr
    assert run.stdout == "ok\n"
    [race] = json.loads((tmp_path / "r.json").read_text())["races"]
    assert race["site"]["line"] == 3 and race["site"]["file"].endswith("k.cu")
    missing = _run([HIRACE, "instrument", "-p", build, "src/other.cu", "-o", "out"], tmp_path)
    assert missing.returncode == 2 and "src/other.cu: no CUDA entry in" in missing.stderr


def test_a_compilation_database_that_cannot_be_one_build_is_named(tmp_path):
    d = str(tmp_path)
    build = _database(tmp_path, [{"directory": d, "file": "a.cu", "arguments": ["nvcc", "-DW=1", "-c", "a.cu"]},
                                 {"directory": d, "file": "b.cu", "arguments": ["nvcc", "-DW=2", "-c", "b.cu"]}])
    for f in ("a.cu", "b.cu"):
        (tmp_path / f).write_text("__global__ void k(int *a) { a[0] = W; }\n")
    res = _run([HIRACE, "instrument", "-p", build, "-o", "out"], tmp_path)
    assert res.returncode == 2 and "different -DW (W=2 and W=1)" in res.stderr, res.stderr
    (build / "compile_commands.json").write_text("{not json")
    bad = _run([HIRACE, "instrument", "-p", build, "-o", "out"], tmp_path)
    assert bad.returncode == 2 and "compile_commands.json: not valid JSON" in bad.stderr
    assert "Traceback" not in res.stderr + bad.stderr


@needs_tools
def test_a_forked_child_of_a_built_program_reports_only_its_own_races(tmp_path):
    """A program built through the launcher whose launch is still being read back when it forks: the
    parent's race is the parent's to report (the child reported it again, and exited 66)."""
    (tmp_path / "f.cu").write_text("#include <cstdio>\n#include <sys/wait.h>\n#include <unistd.h>\n"
                                   "__global__ void racy(int *a) { a[0] = threadIdx.x; }\n"
                                   "int main() { int *d; cudaMalloc(&d, 256); racy<<<1, 64>>>(d); cudaDeviceSynchronize();\n"
                                   "  pid_t c = fork(); if (c == 0) return 0;\n"
                                   "  int st; waitpid(c, &st, 0); printf(\"child %d\\n\", WEXITSTATUS(st)); return 0; }\n")
    assert _run([HIRACE_CC, "nvcc", "f.cu", "-o", "app"], tmp_path).returncode == 0
    run = _run(["./app"], tmp_path)
    assert run.returncode == 66 and run.stdout == "child 0\n", run.stdout + run.stderr
    assert run.stderr.count("hirace: data race in kernel `racy`") == 1, run.stderr


TILES_UNIT = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// lanes of a 16-lane tile exchange through shared memory after the tile's sync: no race, which only
// the lane groups (a sync of part of a warp) show
__global__ void tiles(int *out) {
  __shared__ int x[64];
  cg::thread_block_tile<16> t = cg::tiled_partition<16>(cg::this_thread_block());
  x[threadIdx.x] = threadIdx.x;
  t.sync();
  out[threadIdx.x] = x[threadIdx.x ^ 1];
}
void run_tiles(int *d) { tiles<<<1, 64>>>(d); }
"""
STREAMS_UNIT = """__global__ void fill(int *a, int v) { a[blockIdx.x * blockDim.x + threadIdx.x] = v; }
void run_streams(int *d) {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  fill<<<1, 64, 0, s1>>>(d, 1);
  fill<<<1, 64, 0, s2>>>(d, 2);
  cudaDeviceSynchronize();
}
"""
PLAIN_UNIT = """#include <cstdio>
__global__ void plain(int *a) { a[threadIdx.x] += 1; }
void run_tiles(int *d);
void run_streams(int *d);
int main() {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  plain<<<1, 64>>>(d);
  run_tiles(d);
  run_streams(d);
  cudaDeviceSynchronize();
  std::printf("done\\n");
  return 0;
}
"""


@needs_tools
@pytest.mark.parametrize("order", [("plain", "tiles", "streams"), ("streams", "tiles", "plain")])
def test_units_built_with_different_configurations_each_keep_their_own_check(tmp_path, order):
    """Units the planner configures differently (lane groups, the host's order of streams) linked in
    one program, in either order: each keeps its own check (config.h HIRACE_UNIT_CONFIG), and the log
    keeps the stream races whichever unit's log writer the linker kept. (Before, the first unit's
    inline functions served all: a unit without lane groups first reported the tile's exchange.)"""
    for name, text in (("plain", PLAIN_UNIT), ("tiles", TILES_UNIT), ("streams", STREAMS_UNIT)):
        (tmp_path / f"{name}.cu").write_text(text)
        built = _run([HIRACE_CC, "nvcc", "-c", f"{name}.cu", "-o", f"{name}.o"], tmp_path)
        assert built.returncode == 0, built.stderr
    linked = _run([HIRACE_CC, "nvcc", *(f"{n}.o" for n in order), "-o", "app"], tmp_path)
    assert linked.returncode == 0, linked.stderr
    res = _run([HIRACE, "run", "--format", "json", "--", "./app"], tmp_path)
    assert res.returncode == 1 and res.stdout == "done\n", res.stderr
    report = json.loads(res.stderr[res.stderr.index("{"):])
    assert report["races"] == [], report["races"]
    assert [(Path(x["first"]["file"]).name, x["first"]["line"], x["second"]["line"]) for x in report["stream_races"]] \
        == [("streams.cu", 6, 7)]
