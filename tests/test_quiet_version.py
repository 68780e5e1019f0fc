"""Quiet versions of kernels (hirace/proofs/quiet_version.py): which kernels get one, what the launch and
the host's test look like, that the gpu instrumentation compiles, and that on the cpu backend the
launches whose test holds run the copy and report what the kernels themselves report."""
import json
import re
import subprocess

import pytest
from conftest import CUDA

from hirace import runner
from hirace.proofs import quiet_version
from hirace.proofs.conditions import host_text
from hirace.config import Config
from hirace.results import collect
from instrument import logs
from instrument.backends.cpu import CpuBackend
from instrument.protocol import HIRACE_LOG, Env

SRC = CUDA / "engine" / "quiet_versions.cu"
POINTERS = CUDA / "engine" / "kernel_pointers.cu"
APART = CUDA / "engine" / "apart_forms.cu"


def _instrument(tmp_path, cpu=False):
    ins = runner.instrument([SRC], tmp_path / ("cpu" if cpu else "gpu"), Config(), lower_cpu=cpu)
    return ins, ins.sources[0].read_text()


def test_only_kernels_whose_every_site_is_quiet_and_outside_open_loops_get_a_version(tmp_path):
    _, text = _instrument(tmp_path)
    assert "tile__hirace_q(" in text and "taps__hirace_q(" in text
    assert "rows__hirace_q" not in text
    # (racy's write has an own form, index 0: the host's own-index test refuses every launch of it)
    assert "racy__hirace_q(" in text and "::hirace::host::own_index(__hirace_block, __hirace_grid, 0ll" in text
    # the version's sites test bounds only and note into the thread's journal; no clocks, no check
    version = text[text.index("tile__hirace_q("):text.index("tile__hirace_quiet_ok")]
    assert "::hirace::q::Journal __hirace_journal;" in version
    assert "::hirace::q::rd_paired(__hirace_journal, &(in[" in version   # (read where out is written: a pair)
    assert "::hirace::q::wr_private(__hirace_journal, &(t[threadIdx.y][threadIdx.x])" in version
    assert "::hirace::q::after_block_barrier()" in version
    import re
    assert not re.search(r"::hirace::(?!q::)", version)


def test_the_launch_chooses_with_the_hosts_test_of_the_sites_conditions(tmp_path):
    _, text = _instrument(tmp_path)
    # the test takes the parameters its conditions name (cols: the own index's coefficient), the
    # block's shape against the tile's extents, from the array's type
    test = next(line for line in text.splitlines() if line.startswith("static inline bool tile__hirace_quiet_ok("))
    assert test.startswith("static inline bool tile__hirace_quiet_ok(dim3 __hirace_block, dim3 __hirace_grid, int cols)")
    assert "__hirace_block.y <= 16 && __hirace_block.x <= 16" in test
    assert "::hirace::host::own_index(__hirace_block, __hirace_grid, " in test and "cols" in test
    launch = next(line for line in text.splitlines() if "before_launch((const void *)(tile)" in line)
    assert "::hirace::host::quiet_version(tile__hirace_quiet_ok(dim3(block), dim3(grid), cols), " in launch
    assert ("(::hirace::host::quiet_chosen() ? (void)(tile__hirace_q<<<grid, block, 0, 0>>>(in, out, cols)) : "
            "(void)(tile<<<grid, block, ::hirace::host::launch_shared_bytes(0)>>>(in, out, cols)))") in launch
    assert launch.index("quiet_version(") < launch.index("before_launch(") < launch.index("quiet_chosen()")
    # a kernel without a version keeps its launch as it was
    rows = next(line for line in text.splitlines() if "before_launch((const void *)(rows)" in line)
    assert "quiet_version" not in rows and "quiet_chosen" not in rows


def test_gpu_instrumentation_with_versions_compiles(tmp_path, nvcc):
    """quiet_versions.cu, kernel_pointers.cu (its kernels' entries and launches through a pointer),
    apart_forms.cu (forms_apart in the kernel and in the host's test) and inside_tiles.cu (a template's
    sites shown inside their arrays: q::inside in its copy, the caps in its host test)."""
    from runtime import include_dir
    for src in (SRC, POINTERS, APART, CUDA / "engine" / "inside_tiles.cu"):
        ins = runner.instrument([src], tmp_path / src.stem, Config())
        r = subprocess.run([str(nvcc), "-std=c++17", "-c", f"-I{include_dir()}", *[f"-D{d}" for d in ins.planner.defines()],
                            str(ins.sources[0]), "-o", str(tmp_path / f"{src.stem}.o")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-3000:]
        if src == POINTERS:   # (a launch through a pointer gives hirace's area to a kernel that registered as entered)
            text = ins.sources[0].read_text()
            assert "kernel<<<dim3(w / T, k == 2 ? 1 : w / T), block, ::hirace::host::launch_shared_bytes(0)>>>" in text, text
            assert text.count("::hirace::host::pointer_area(kernel), ") == text.count("pointer_prepare(kernel") > 0
            assert re.search(r'kernel_entry\(&rows, "rows", .*, true\);', text)


def test_the_cpu_backends_copy_lowers_the_versions_shared_arrays_and_launch(tmp_path):
    _, text = _instrument(tmp_path, cpu=True)
    version = text[text.index("tile__hirace_q("):text.index("tile__hirace_quiet_ok")]
    # the copy's tile is the block's own storage, as the kernel's is (a key of the copy's own)
    assert "static char cudaemu_shared_key_t_10_3; auto &t = ::cudaemu::block_shared<float[16][16]>(" in version
    assert "__shared__" not in version
    launch = next(line for line in text.splitlines() if "before_launch((const void *)(tile)" in line)
    assert ('(::hirace::host::quiet_chosen() ? (void)(::cudaemu::launcher("tile", __FILE__, __LINE__, (grid), '
            '(block), (0), (0), tile__hirace_q)(in, out, cols)) : (void)(::cudaemu::launcher("tile", ') in launch
    assert "<<<" not in text


@pytest.fixture(scope="module")
def cpu_program(tmp_path_factory):
    return runner.build([SRC], CpuBackend(), tmp_path_factory.mktemp("qv"), Config())


def _run(built, tmp_path, stdout="out 31\n", **env):
    """One run of `built`: which launches ran a copy (kernel, quiet), and the report."""
    log = tmp_path / f"log{len(list(tmp_path.iterdir()))}.jsonl"
    r = built.backend.run(built.exe, env={Env.HIRACE_LOG: str(log), **env})
    assert r.returncode == 0 and r.stdout == stdout, r.stderr
    return [(x.kernel, x.quiet) for x in logs.read(log, HIRACE_LOG, "hirace's log")["launch"]], collect(log, built.sites)


def _found(report):
    return ([(x.kernel, x.site.line, x.kind) for x in report.races],
            [(m.kernel, m.site.line, m.offset, m.count, m.thread, m.block) for m in report.memory_errors])


def test_on_the_cpu_backend_the_launches_whose_test_holds_run_the_copy_and_report_the_same(cpu_program, tmp_path):
    quiet, report = _run(cpu_program, tmp_path)
    found = _found(report)
    # tile and taps run their copies; rows has none; racy's own-index test fails (every thread at 0)
    assert quiet == [("tile", 1), ("taps", 1), ("rows", 0), ("racy", 0)]
    # taps' read one word before `in` (12 bytes: o = -2 at i = 0), three times in thread 0, from the copy
    assert found == ([("racy", 28, "write-write")], [("taps", 19, -12, 3, (0, 0, 0), (0, 0, 0))])
    without, report_without = _run(cpu_program, tmp_path, **{Env.HIRACE_QUIET_VERSIONS: "0"})
    assert [q for _, q in without] == [0, 0, 0, 0] and _found(report_without) == found
    # a block filter makes every launch run the kernel (the copy checks every block)
    filtered, _ = _run(cpu_program, tmp_path, **{Env.HIRACE_BLOCKS: "0:1"})
    assert [q for _, q in filtered] == [0, 0, 0, 0]


def test_host_conditions_take_array_extents_and_refuse_other_names():
    cond = "(blockDim.z == 1 && blockDim.y <= sizeof(t) / sizeof(t[0]) && blockDim.x <= sizeof(t[0]) / sizeof(t[0][0]))"
    assert host_text(cond, {"t": [8, 32]}, set()) == \
        "(__hirace_block.z == 1 && __hirace_block.y <= 8 && __hirace_block.x <= 32)"
    assert host_text("blockDim.x <= n", {}, {"n"}) == "__hirace_block.x <= n"
    assert host_text("blockDim.x <= k", {}, {"n"}) is None   # a local: not on the host
    assert host_text("blockDim.x <= sizeof(u) / sizeof(u[0])", {}, set()) is None
    # a template's extents as its type writes them: in its (template) test, where T is in scope
    assert host_text(cond, {"t": ["T", "T + 1"]}, {"T"}) == \
        "(__hirace_block.z == 1 && __hirace_block.y <= (T) && __hirace_block.x <= (T + 1))"
    assert host_text(cond, {"t": ["T", "T + 1"]}, set()) is None


def test_a_thread_of_a_version_notes_its_first_sites_and_the_report_says_what_it_dropped(tmp_path):
    """engine/quiet_journal.cu: thread 0 of `five` reads before `in` at five sites. The copy's journal
    keeps four of them (whichever the thread met first) and counts the fifth; the report names the
    kernel and says how to see every site, and the kernel itself names all five."""
    built = runner.build([CUDA / "engine" / "quiet_journal.cu"], CpuBackend(), tmp_path / "b", Config())
    found = {}
    for versions in ("1", "0"):
        quiet, found[versions] = _run(built, tmp_path, "out 0\n", **{Env.HIRACE_QUIET_VERSIONS: versions})
        assert quiet == [("five", int(versions))]
    lines = {v: {m.site.line for m in rep.memory_errors} for v, rep in found.items()}
    assert lines["0"] == {8, 9, 10, 11, 12} and not found["0"].warnings
    assert len(lines["1"]) == 4 and lines["1"] < lines["0"]
    assert all(m.count == 1 and m.offset <= -240 for m in found["1"].memory_errors)
    assert found["1"].warnings == [
        "1 out-of-bounds records of kernel 'five' (launch 0) were dropped: more sites than max_reports, or more "
        "than a thread of the kernel's quiet version notes (HIRACE_QUIET_VERSIONS=0 names every site)"]


def test_launches_through_a_kernel_pointer_take_the_kernels_quiet_parameters_and_version(tmp_path):
    """engine/kernel_pointers.cu (hirace/pointer_launches.py): each kernel registers its quiet
    parameters and version by address; launches through a pointer find them. Launches 0 and 1 run
    the copies (their writes are own over a counted loop, `swap`'s after assigning its coordinates
    again); launch 2's taller blocks make two threads write one element (the own-index test fails,
    the kernel checks and reports the write-write race); launch 3 reads `a` while writing it. The
    reports name the kernel the pointer pointed to."""
    text = runner.instrument([POINTERS], tmp_path / "i", Config(), lower_cpu=True).sources[0].read_text()
    assert 'static const bool hirace_entry_rows = ::hirace::host::kernel_entry(&rows, "rows", +[](' in text
    assert "::hirace::host::pointer_prepare(kernel, dim3(block), dim3(dim3(w / T, k == 2 ? 1 : w / T)), a, in, w)" in text
    built = runner.build([POINTERS], CpuBackend(), tmp_path / "b", Config())
    quiet, report = _run(built, tmp_path, "1 1\n")
    assert quiet == [("rows", 1), ("swap", 1), ("rows", 0), ("swap", 0)]
    assert sorted({(x.kernel, x.launch, x.site.line, x.kind) for x in report.races}) == \
        [("rows", 2, 15, "write-write"), ("swap", 3, 25, "read-write")]
    assert report.memory_errors == []


def test_an_own_parameter_read_at_indices_apart_from_its_writes_keeps_its_version(tmp_path):
    """engine/apart_forms.cu: `update` writes its block's tile of m and reads the strips above and left
    of the tiles, as lud's internal blocks do (runtime forms_apart, in the kernel and the host's
    test). Launch 0's strips meet no tile: it runs the quiet version (its tile loop counts to a
    macro with a variable declared before it: not an open loop). Launch 1's upper strip is the
    first row of tiles: the checked kernel runs and reports the read-write race of the blocks below."""
    text = runner.instrument([APART], tmp_path / "i", Config()).sources[0].read_text()
    assert text.count("::hirace::forms_apart(") == 2 and text.count("::hirace::host::forms_apart(__hirace_block") == 2
    built = runner.build([APART], CpuBackend(), tmp_path / "b", Config())
    quiet, report = _run(built, tmp_path, "1 -3\n")
    assert quiet == [("update", 1), ("update", 0)]
    assert sorted({(x.launch, x.site.line, x.kind, x.prior_site.line if x.prior_site else None)
                   for x in report.races}) == [(1, 16, "read-write", 21)]
    assert report.memory_errors == []


# ---------------------------------------------------------------- kernel templates (engine/template_matmul.cu)

TEMPLATES = CUDA / "engine" / "template_matmul.cu"


@pytest.fixture(scope="module")
def template_texts(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("qvt")
    out = {}
    for backend in ("gpu", "cpu"):
        ins = runner.instrument([TEMPLATES], tmp / backend, Config(), lower_cpu=backend == "cpu")
        out[backend] = (ins, ins.sources[0].read_text())
    return out


def test_a_kernel_templates_copy_and_test_are_templates_of_its_parameter_list(template_texts):
    _, text = template_texts["gpu"]
    assert "template <int T> __global__ void mm__hirace_q(float *c, const float *a, const float *b, int n) {" in text
    test = next(line for line in text.splitlines() if "mm__hirace_quiet_ok(dim3" in line)
    # the tile's extents as its type writes them, T, in scope in the template test; the own index names T
    assert test.startswith("template <int T> static inline bool mm__hirace_quiet_ok(dim3 __hirace_block, "
                           "dim3 __hirace_grid, int n) {")
    assert "(__hirace_block.z == 1 && __hirace_block.y <= (T) && __hirace_block.x <= (T))" in test
    assert "::hirace::host::own_index(__hirace_block, __hirace_grid, (1ll), ((long long)(n)), 0ll, " \
           "((long long)(T)), ((long long)(T) * (long long)(n)), 0ll, 0ll)" in test
    # each launch passes its explicit template arguments to the test and the copy
    launch = next(line for line in text.splitlines() if "before_launch((const void *)(mm<8>)" in line)
    assert "::hirace::host::quiet_version(mm__hirace_quiet_ok<8>(dim3(dim3(8, 8)), dim3(dim3(N / 8, N / 8)), n), 7u)" in launch
    assert ("(::hirace::host::quiet_chosen() ? (void)(mm__hirace_q<8><<<dim3(N / 8, N / 8), dim3(8, 8), 0, 0>>>"
            "(c, a, b, n)) : (void)(mm<8><<<") in launch
    _, cpu = template_texts["cpu"]
    assert ('(void)(::cudaemu::launcher("mm", __FILE__, __LINE__, (dim3(N / 16, N / 16)), (dim3(16, 16)), (0), (0), '
            'mm__hirace_q<16>)(c, a, b, n))') in cpu
    assert "auto &sa = ::cudaemu::block_shared<float[T][T]>(" in cpu[cpu.index("mm__hirace_q("):]


def test_gpu_instrumentation_of_kernel_templates_with_versions_compiles(template_texts, tmp_path, nvcc):
    """Both instantiations of mm (16 and 8) and skew's, their own-index tests at the kernel's entry,
    the copies and the template host tests."""
    from runtime import include_dir
    ins, _ = template_texts["gpu"]
    r = subprocess.run([str(nvcc), "-std=c++17", "-c", f"-I{include_dir()}", *[f"-D{d}" for d in ins.planner.defines()],
                        str(ins.sources[0]), "-o", str(tmp_path / "t.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


def test_on_the_cpu_backend_template_launches_run_their_copies_where_the_test_holds(tmp_path):
    """mm<16> and mm<8> run their copies and compute the product (196097 summed); skew<8>'s blocks
    overlap by half a tile: its own-index test fails, the kernel runs and reports the race on c."""
    built = runner.build([TEMPLATES], CpuBackend(), tmp_path / "b", Config())
    stdout = "sums 196097 196097\n"
    quiet, report = _run(built, tmp_path, stdout)
    assert quiet == [("mm", 1), ("mm", 1), ("skew", 0)]
    assert {(x.kernel, x.site.line, x.kind) for x in report.races} == {("skew", 28, "write-write")}
    assert not report.memory_errors
    without, report_without = _run(built, tmp_path, stdout, **{Env.HIRACE_QUIET_VERSIONS: "0"})
    assert [q for _, q in without] == [0, 0, 0] and _found(report_without) == _found(report)


@pytest.mark.parametrize("open_loops", [False, True])
def test_on_the_cpu_backend_launches_that_deduce_template_arguments_run_the_kernel(tmp_path, open_loops):
    """engine/template_launches.cu: the launches naming every template argument run the copies, those
    that deduce (fill<<<>>>, put<32><<<>>>) the kernels; the race of pair is reported either way. With
    the benchmark switch (here its configuration attribute), sum's open loop gets its version too."""
    config = Config()
    config.bench_open_loop_versions = open_loops
    built = runner.build([CUDA / "engine" / "template_launches.cu"], CpuBackend(), tmp_path / "b", config)
    quiet, report = _run(built, tmp_path, "out 1 128\n")
    assert quiet == [("fill", 0), ("fill", 1), ("put", 0), ("put", 1), ("sum", int(open_loops)), ("pair", 0)]
    assert _found(report) == ([("pair", 11, "write-write")], [])


def test_loops_of_one_count_per_block_keep_the_version_and_counts_the_data_decides_do_not(run_cli, tmp_path):
    """quiet_version._open_loop: a loop whose condition names only values every thread of a block
    holds alike (a parameter, blockIdx, a local made of them) runs one count per block, as matrixMul's
    tile loop, and so does a loop bounded by such a loop's variable (lud's `j < i`); one whose count a
    thread reads from memory (spmv's rows) or computes from its own coordinates keeps the kernel from a
    version (measured slower there)."""
    src = tmp_path / "loops.cu"
    src.write_text("""#define T 16
__global__ void tiles(float *out, const float *in, int n) {
  int last = n / T + blockIdx.y;
  float s = 0;
  for (int t = blockIdx.y; t < last; ++t) s += in[t];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void rows(float *out, const float *in, const int *ptr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int end = ptr[i + 1];
  float s = 0;
  for (int j = ptr[i]; j < end; ++j) s += in[j];
  out[i] = s;
}
__global__ void lanes(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int end = n + threadIdx.x;
  float s = 0;
  for (int j = 0; j < end; ++j) s += in[j];
  out[i] = s;
}
__global__ void nested(float *out, const float *in, int n) {
  float s = 0;
  for (int t = 0; t < n; ++t)
    for (int j = 0; j < t; ++j) s += in[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
""")
    r = run_cli("hirace.cli", "explain", "--format", "json", src)
    assert r.returncode == 0, r.stderr
    got = {k["name"]: (k["quiet_version"]["has"], k["quiet_version"]["why"] or "")
           for k in json.loads(r.stdout)["kernels"]}
    assert got["tiles"] == (True, "")
    assert not got["rows"][0] and "loop whose count the program decides" in got["rows"][1] and "line 12" in got["rows"][1]
    assert not got["lanes"][0] and "line 19" in got["lanes"][1]
    # (the variable of a loop of one count per block is alike in every thread of it: lud's triangle)
    assert got["nested"] == (True, "")


NAMESPACES = """#include <cstdio>
namespace x { __global__ void k(int *a) { a[threadIdx.x] = 1; } } namespace y { __global__ void k(int *a) { a[threadIdx.x] += 2; } }
namespace z {
__global__ void k(int *a) { a[threadIdx.x] += 4; }
}
int main() {
  int *a, h = 0;
  cudaMalloc(&a, 128);
  x::k<<<1, 32>>>(a); y::k<<<1, 32>>>(a); z::k<<<1, 32>>>(a);
  cudaMemcpy(&h, a, 4, cudaMemcpyDeviceToHost);
  printf("%d\\n", h);
  return 0;
}
"""


def test_kernels_whose_namespace_closes_on_their_last_line_have_no_copy_outside_it(tmp_path, nvcc):
    """x::k and y::k end on the line where their namespaces close: a copy (and a kernel entry) after that line
    would be outside them, where the two copies clashed and the program did not build; they get none. z::k,
    whose namespace closes later, keeps its copy inside it (which no launch takes: a launch of one of three
    kernels named k takes none's facts)."""
    from runtime import include_dir
    src = tmp_path / "ns.cu"
    src.write_text(NAMESPACES)
    ins = runner.instrument([src], tmp_path / "gpu", Config())
    text = ins.sources[0].read_text()
    assert text.count("k__hirace_q(") == 1   # (z's copy)
    assert text.index("namespace z {") < text.index("k__hirace_q(") < text.index("int main()")
    r = subprocess.run([str(nvcc), "-std=c++17", "-c", f"-I{include_dir()}", *[f"-D{d}" for d in ins.planner.defines()],
                        str(ins.sources[0]), "-o", str(tmp_path / "ns.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    built = runner.build([src], CpuBackend(), tmp_path / "cpu", Config())
    log = tmp_path / "log.jsonl"
    run = built.backend.run(built.exe, [], env={Env.HIRACE_LOG: str(log)})
    assert run.returncode == 0 and run.stdout == "7\n", run.stderr
    assert [x.quiet for x in logs.read(log, HIRACE_LOG, "the log")["launch"]] == [0, 0, 0]
