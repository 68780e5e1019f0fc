"""Kernel tests written in Python: the kernel library (build, load, marshal), the pytest
plugin's cuda_kernel fixture, and pytest suites run through cltc coverage, mutate and
amplify on the cpu backend, with exact expected numbers for the bundled example suite."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from instrument.backends.cpu import CpuBackend
from instrument.errors import UserError
from instrument.kernel_lib.build import build_library
from instrument.kernel_lib.load import KernelNotFound, LaunchFailed, open_library
from instrument.kernel_lib.marshal import KernelArgumentError
from instrument.kernel_lib.signatures import kernel_signatures
from instrument.frontend.parse import parse_file

from conftest import QUIET_PLUGINS, ROOT

EXAMPLE = ROOT / "examples" / "pytest_kernels"
SURVIVORS = [1, 2, 3, 9, 12, 32, 34, 42]

KERNELS = r"""
namespace blas {
__global__ void scale(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
}
struct Pair { int a, b; };
__global__ void swap_pairs(Pair *p, int n) {
  int i = threadIdx.x;
  if (i < n) { int t = p[i].a; p[i].a = p[i].b; p[i].b = t; }
}
__global__ void by_value(Pair p, int *out) { *out = p.a; }
template <class T> __global__ void fill(T *a, T v) { a[threadIdx.x] = v; }
__global__ void off_by_one(unsigned *a, unsigned long long n) {
  unsigned i = threadIdx.x;
  if (i <= n) a[i] = 7u;
}
__global__ void counts(const unsigned char *flags, bool invert, unsigned *n) {
  if (flags[threadIdx.x] != (unsigned char)invert) atomicAdd(n, 1u);
}
"""


@pytest.fixture(scope="module")
def kernel_file(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("kernels") / "kernels.cu"
    p.write_text(KERNELS)
    return p


@pytest.fixture(scope="module")
def lib(kernel_file, tmp_path_factory):
    lib = open_library(build_library([kernel_file], CpuBackend(), tmp_path_factory.mktemp("lib")))
    yield lib
    lib.finish()


@pytest.fixture(scope="module", autouse=True)
def quiet_children():
    old = os.environ.get("PYTEST_ADDOPTS")
    os.environ["PYTEST_ADDOPTS"] = QUIET_PLUGINS
    yield
    if old is None:
        os.environ.pop("PYTEST_ADDOPTS", None)
    else:
        os.environ["PYTEST_ADDOPTS"] = old


# -- signatures ---------------------------------------------------------------

def test_signatures_name_types_and_device_symbols(kernel_file):
    sigs = {s.qualified: s for s in kernel_signatures(parse_file(kernel_file))}
    assert list(sigs) == ["blas::scale", "swap_pairs", "by_value", "fill", "off_by_one", "counts"]
    scale = sigs["blas::scale"]
    assert scale.symbol == "_ZN4blas5scaleEifPKfPf"       # what nvcc names the kernel in a cubin
    assert [(p.name, p.kind, p.dtype, p.const) for p in scale.params] == [
        ("n", "scalar", "int32", False), ("a", "scalar", "float32", False),
        ("x", "pointer", "float32", True), ("y", "pointer", "float32", False)]
    assert sigs["swap_pairs"].params[0].dtype == "record8"
    assert "parameter 'p' has type 'Pair'" in sigs["by_value"].problem
    assert "template" in sigs["fill"].problem
    assert sigs["counts"].params[1].dtype == "bool"
    assert sigs["off_by_one"].params[1].dtype == "uint64"


# -- launching on the cpu backend ----------------------------------------------

def test_launch_copies_in_and_back(lib, kernel_file):
    scale = lib.kernel(kernel_file, "scale")
    x = np.arange(300, dtype=np.float32)
    y = np.zeros(300, dtype=np.float32)
    scale((2, 1), 256, 300, 1.5, x, y)
    np.testing.assert_array_equal(y, 1.5 * x)
    pairs = np.array([(1, 2), (3, 4)], dtype=[("a", "i4"), ("b", "i4")])
    lib.kernel(kernel_file, "swap_pairs")(1, 4, pairs, 2)
    assert pairs.tolist() == [(2, 1), (4, 3)]
    n = np.zeros(1, np.uint32)
    lib.kernel(kernel_file, "counts")(1, 8, np.array([1, 0, 1, 1, 0, 0, 0, 1], np.uint8), True, n)
    assert n[0] == 4


def test_const_arrays_are_not_copied_back(lib, kernel_file):
    x = np.ones(4, dtype=np.float32)
    x.flags.writeable = False            # a const parameter accepts read-only arrays
    y = np.zeros(4, dtype=np.float32)
    lib.kernel(kernel_file, "blas::scale")(1, 4, 4, 2.0, x, y)
    assert y.tolist() == [2.0] * 4


@pytest.mark.parametrize("args, message", [
    ((4, 1.0, np.zeros(4, np.float32)), r"takes 4 arguments \(n, a, x, y\), got 3"),
    ((4, 1.0, np.zeros(4), np.zeros(4, np.float32)), r"parameter 'x' \(const float \*\) takes an array of float32, got float64"),
    ((4.5, 1.0, np.zeros(4, np.float32), np.zeros(4, np.float32)), r"parameter 'n' \(int\) is an integer"),
    ((2 ** 31, 1.0, np.zeros(4, np.float32), np.zeros(4, np.float32)), r"parameter 'n' \(int\): 2147483648 does not fit"),
    ((4, 1.0, [0.0] * 4, np.zeros(4, np.float32)), r"parameter 'x' .* takes a numpy array, not list"),
    ((4, 1.0, np.zeros(8, np.float32)[::2], np.zeros(4, np.float32)), r"not C-contiguous"),
])
def test_argument_mismatches_name_the_parameter(lib, kernel_file, args, message):
    with pytest.raises(KernelArgumentError, match=message):
        lib.kernel(kernel_file, "scale")(1, 4, *args)


def test_unknown_and_unlaunchable_kernels(lib, kernel_file):
    with pytest.raises(KernelNotFound, match=r"no kernel named 'sacle'; its kernels: blas::scale, swap_pairs"):
        lib.kernel(kernel_file, "sacle")
    with pytest.raises(KernelNotFound, match=r"kernels.cu:\d+: kernel 'by_value' cannot be launched"):
        lib.kernel(kernel_file, "by_value")
    with pytest.raises(KernelNotFound, match="not built from that file"):
        lib.kernel(kernel_file.parent / "other.cu", "scale")


def test_writes_outside_an_array_are_reported(lib, kernel_file):
    a = np.zeros(4, dtype=np.uint32)
    with pytest.raises(LaunchFailed, match=r"wrote outside the array of parameter 'a' \(4 bytes past its end"):
        lib.kernel(kernel_file, "off_by_one")(1, 8, a, 4)
    lib.kernel(kernel_file, "off_by_one")(1, 8, a, 3)
    assert a.tolist() == [7, 7, 7, 7]


def test_compile_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k(int *a) {\n  a[0] = undefined_name;\n}\n")
    with pytest.raises(UserError, match=r"bad.cu:2:\d+: error"):
        build_library([bad], CpuBackend(), tmp_path / "out")


def test_python_schedule_matches_the_runtime_header(tmp_path):
    """gpu_host.make_schedule is the Python twin of schedule.h's host::make_schedule, and a spec reads
    the same through the parser generated into protocol.h and instrument/protocol.py's."""
    from cltestcheck.gpu_host import make_schedule
    from instrument.backends import BuildRequest
    from instrument.protocol import parse_schedule
    from runtime import include_dir
    cases = [("first:7", 10, 0), ("first:23", 10, 1), ("asc", 5, 0), ("desc", 6, 0),
             ("random:12345", 17, 0), ("random:12345", 17, 3), ("random:99", 1, 0), ("random:4242", 40, 2),
             ("free", 4, 0), ("none", 4, 0), ("sideways", 4, 0), ("first:", 4, 0), ("first:12x", 20, 0)]
    src = tmp_path / "sched.cu"
    lines = ['#include "cltc/schedule.h"', "#include <cstdio>", "int main() {"]
    for spec, n, launch in cases:
        lines += [f'  {{ ::cctk::schedule::Spec p = ::cctk::schedule::parse("{spec}"); ::cltc::sched::host::State s; '
                  "s.mode = p.mode; s.first = p.first; s.seed = p.seed;",
                  '    std::printf("%u %u %llu:", s.mode, s.first, s.seed);',
                  f"    for (unsigned v : ::cltc::sched::host::make_schedule(s, {n}, {launch})) std::printf(\" %u\", v);",
                  '    std::printf("\\n"); }']
    src.write_text("\n".join(lines + ["}"]))
    exe = CpuBackend().build(BuildRequest([src], tmp_path / "sched", [include_dir()]))
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    for (spec, n, launch), line in zip(cases, out):
        parsed, order = line.split(":")
        s = parse_schedule(spec)
        assert [int(v) for v in parsed.split()] == [s.mode, s.first, s.seed], spec
        assert [int(v) for v in order.split()] == make_schedule(s.mode, s.first, s.seed, n, launch), spec


# -- the pytest plugin on its own ---------------------------------------------

@pytest.fixture
def plugin_run(pytester, monkeypatch):
    """Run pytest with the cltc plugin in a child process (a kernel fault ends the process, as
    on a GPU) in pytester's directory; returns pytester's RunResult."""
    monkeypatch.setenv("PYTEST_ADDOPTS", QUIET_PLUGINS)
    return lambda *args: pytester.runpytest_subprocess("-p", "no:cacheprovider", "--cuda-backend", "cpu",
                                                       *args, timeout=300)


def test_plugin_runs_the_example_suite_on_the_cpu_backend(plugin_run):
    r = plugin_run(str(EXAMPLE))
    r.assert_outcomes(passed=5)


def test_plugin_reports_a_missing_kernel_as_a_test_failure(pytester, plugin_run):
    pytester.makefile(".cu", k="__global__ void present(int *a) { a[0] = 1; }\n")
    pytester.makepyfile(test_k="def test_missing(cuda_kernel):\n    cuda_kernel('k.cu', 'absent')\n")
    r = plugin_run()
    r.assert_outcomes(failed=1)
    r.stdout.fnmatch_lines(["*no kernel named 'absent'; its kernels: present*"])


# -- pytest suites under cltc ---------------------------------------------------

def test_cltc_coverage_of_the_example_suite():
    from cltestcheck import suite as suite_mod
    from cltestcheck.coverage import engine
    s = suite_mod.load(EXAMPLE)
    assert s.kind.name == "pytest" and [p.name for p in s.sources] == ["histogram.cu", "saxpy.cu"]
    res = engine.run(s, "cpu", jobs=2, progress=False)
    assert all(t.verdict.passed for t in res.tests)
    total = res.total()
    assert total.branches == [10, 10]
    assert {c: v for c, v in total.loops.items()} == {"zero": [3, 3], "one": [3, 3], "many": [1, 3],
                                                      "boundary": [3, 3]}
    assert total.barriers == [2, 2]
    uncovered = [(i.file.rsplit("/", 1)[-1], i.line, i.case) for i in res.items() if not i.covered]
    assert uncovered == [("histogram.cu", 6, "many"), ("histogram.cu", 11, "many")]
    by = {c["test"]: (c["covered"], c["unique"]) for c in res.contributions()}
    assert by == {"test_histogram.py::test_histogram_counts_every_key": (11, 1),
                  "test_histogram.py::test_nonzero_bins_lists_each_once": (19, 9),
                  "test_saxpy.py::test_saxpy_whole_blocks": (1, 0),
                  "test_saxpy.py::test_saxpy_ragged_tail": (2, 1),
                  "test_saxpy.py::test_saxpy_checks_arguments": (0, 0)}
    assert all(t.collected for t in res.tests)     # a test that launches nothing still counts


def test_cltc_amplify_of_the_example_suite():
    from cltestcheck import suite as suite_mod
    from cltestcheck.amplify import engine
    res = engine.run(suite_mod.load(EXAMPLE), "cpu", runs=1, family="all", seed=0, jobs=2, progress=False)
    v = {t.name: t.verdict for t in res.tests}
    assert v == {"test_histogram.py::test_histogram_counts_every_key": "stable",
                 "test_histogram.py::test_nonzero_bins_lists_each_once": "schedule-dependent",
                 "test_saxpy.py::test_saxpy_whole_blocks": "stable",
                 "test_saxpy.py::test_saxpy_ragged_tail": "stable",
                 "test_saxpy.py::test_saxpy_checks_arguments": "stable"}
    dep = next(t for t in res.tests if t.verdict != "stable")
    assert all(o.startswith("passed") for o in dep.outputs)     # the test passes; the outputs differ
    assert {t.blocks for t in res.tests} == {1, 2, 4}


def test_cltc_mutate_of_the_example_suite():
    from cltestcheck import suite as suite_mod
    from cltestcheck.mutate import engine
    s = suite_mod.load(EXAMPLE)
    res = engine.run(s, "cpu", operators=["relational", "thread-index"], runs=1, jobs=2, progress=False)
    counts = {}
    for o in res.outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    # the same numbers, mutant by mutant, as pycuda on an H100 (bench/results/pytest_kernels_h100)
    assert counts == {"killed": 45, "survived": 8}
    survived = sorted(o.mutant.id for o in res.outcomes if o.status == "survived")
    assert survived == SURVIVORS
    by_id = {o.mutant.id: o for o in res.outcomes}
    # `b <= nbins` writes local[nbins]: the GPU faults, and so does the cpu backend
    assert by_id[15].status == "killed" and "after the end of its 256 bytes of dynamic shared memory" in by_id[15].reason


def test_shared_memory_past_the_end_stops_the_test_process(pytester, plugin_run):
    """On the cpu backend, as on a GPU, an access past the dynamic shared memory is a fault."""
    pytester.makefile(".cu", k=(
        "__global__ void k(unsigned *out, int nb) {\n"
        "  extern __shared__ unsigned local[];\n"
        "  for (int b = threadIdx.x; b <= nb; b += blockDim.x) local[b] = 0;\n"
        "  __syncthreads();\n"
        "  out[threadIdx.x] = local[threadIdx.x % nb];\n}\n"))
    pytester.makepyfile(test_k=(
        "import numpy as np\n"
        "def test_k(cuda_kernel):\n"
        "    cuda_kernel('k.cu', 'k')(1, 128, np.zeros(128, np.uint32), 64, shared_mem=256)\n"))
    r = plugin_run()
    assert r.ret == 88
    err = r.stderr.str()
    assert "kernel 'k' (launched at" in err and "accessed byte 1 after the end of its 256 bytes" in err


def test_bad_pytest_suites_get_clear_errors(tmp_path):
    from cltestcheck import suite as suite_mod
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "k.cu").write_text("__global__ void k(int *a) { a[0] = 1; }\n")
    (broken / "test_x.py").write_text("def test_x(cuda_kernel)\n    pass\n")
    with pytest.raises(UserError, match=r"pytest could not collect the suite") as err:
        suite_mod.load(broken)
    assert "test_x.py" in str(err.value) and "SyntaxError" in str(err.value)
    elsewhere = tmp_path / "tests"
    elsewhere.mkdir()
    (elsewhere / "test_y.py").write_text("def test_y(cuda_kernel):\n    cuda_kernel('../src/k.cu', 'k')\n")
    with pytest.raises(UserError, match=r"no \.cu kernel files under it") as err:
        suite_mod.load(elsewhere)
    assert "--kernels" in str(err.value)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text("__global__ void k(int *a) { a[0] = 1; }\n")
    s = suite_mod.load(elsewhere, [tmp_path / "src" / "k.cu"])
    assert s.kind.name == "pytest" and [t.name for t in s.tests] == ["test_y.py::test_y"]


def test_builds_are_cached_between_sessions_until_a_dependency_changes(tmp_path, monkeypatch):
    from instrument.kernel_lib.cache import cached_library
    monkeypatch.setenv("CLTC_KERNEL_CACHE", str(tmp_path / "cache"))
    (tmp_path / "value.h").write_text("#define VALUE 5\n")
    src = tmp_path / "k.cu"
    src.write_text('#include "value.h"\n__global__ void k(int *a) { a[0] = VALUE; }\n')
    first = cached_library(src, CpuBackend(), tmp_path / "scratch1")
    assert cached_library(src, CpuBackend(), tmp_path / "scratch2") == first      # a hit: nothing built
    assert not (tmp_path / "scratch2").exists()
    (tmp_path / "value.h").write_text("#define VALUE 6\n")                       # a header the file includes
    second = cached_library(src, CpuBackend(), tmp_path / "scratch3")
    assert second != first
    lib = open_library(second)
    a = np.zeros(1, np.int32)
    lib.kernel(src, "k")(1, 1, a)
    assert a[0] == 6
    lib.finish()
    monkeypatch.setenv("CLTC_KERNEL_CACHE", "off")
    assert cached_library(src, CpuBackend(), tmp_path / "scratch4").parent == tmp_path / "scratch4"


def test_python_reads_the_coverage_bits_as_the_runtime_lays_them_out(tmp_path):
    """gpu_host reads what kernels noted in registers (coverage.h's g_bits: a row of words per SM,
    flag i at bit i, barrier flag j at bit sizeof(g_flags) + j) from the three arrays' sizes alone:
    the runtime's layout, printed by the header for several sizes, and a read through a stand-in
    driver of bits set in different rows."""
    import struct
    from cltestcheck.gpu_host import ToolHost, mangled
    from instrument import logs
    from instrument.backends import BuildRequest
    from instrument.protocol import COVERAGE_LOG, Env
    from runtime import include_dir
    for flags, barriers in ((13, 2), (1, 0), (200, 9), (1000, 40)):
        src = tmp_path / f"layout_{flags}.cu"
        src.write_text('#include "cltc/coverage.h"\n#include <cstdio>\nint main() {\n  namespace c = ::cltc::cov;\n'
                       '  std::printf("%zu %zu %zu %u %u\\n", sizeof(c::g_flags), sizeof(c::g_barrier_flags), '
                       'sizeof(c::g_bits), c::kBitRow, c::bit_of(c::kBarrierFlag | 1));\n}\n')
        exe = CpuBackend().build(BuildRequest([src], tmp_path / f"layout_{flags}", [include_dir()],
                                              [f"CLTC_COV_FLAGS={flags}", f"CLTC_COV_BARRIERS={barriers}"]))
        nf, nb, nbits, row, bar1 = map(int, subprocess.run([str(exe)], capture_output=True, text=True,
                                                           check=True).stdout.split())
        assert row == (nf + nb + 1023) // 1024 * 16 and bar1 == nf + 1 and nbits % (8 * row) == 0
        # a module whose g_bits has item flag 3 set in SM row 7, barrier flag 1 in the last row
        words = [0] * (nbits // 8)
        words[7 * row + 3 // 64] |= 1 << 3
        words[nbits // 8 - row + bar1 // 64] |= 1 << (bar1 % 64)
        item, bar = bytearray(nf), bytearray(nb)
        item[min(5, flags - 1)] = 1   # and a flag set directly (a device function's item)
        memory = {"g_flags": bytes(item), "g_barrier_flags": bytes(bar), "g_divergence_count": bytes(4),
                  "g_divergence": bytes(24 * 256), "g_bits": struct.pack(f"<{len(words)}Q", *words)}

        class Driver:
            def global_of(self, mod, name):
                for k, v in memory.items():
                    if name == mangled("cltc", "cov", k):
                        return k, len(v)
                from instrument.kernel_lib.drivers import DriverError
                raise DriverError(f"no {name}")

            def dtoh(self, buf, ptr):
                buf[:] = list(memory[ptr])

        class Lib:
            driver, modules = Driver(), {"k.cu": object()}

        log = tmp_path / f"cov_{flags}.log"
        ToolHost(["coverage"], {Env.CLTC_COV_LOG: str(log)}).finish(Lib())
        data = logs.read_complete(log, COVERAGE_LOG, "the coverage log")
        assert {r.id for r in data["flag"]} == {3, min(5, flags - 1)}
        assert {r.id for r in data["barrier_flag"]} == {1}
