"""hirace/proofs/call_context.py: a device function whose accesses name only its reference parameters' words is
quiet in the calls whose arguments' words the kernel's interval analysis proves apart, and checked whole in
every other call (tests/cuda/races/ref_comparator_{ok,race}.cu run both on the cpu backend)."""
from __future__ import annotations

import pytest

from hirace.proofs.intervals import KernelFacts, shared_intervals
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query

HEAD = "#include <cuda_runtime.h>\n"
SWAP = "__device__ inline void swap(int &a, int &b, int dir) { if ((a > b) == dir) { int t = a; a = b; b = t; } }\n"
KERNEL = """
__global__ void k(int *out, int n) {
  __shared__ int s[128];
  s[threadIdx.x] = n; s[threadIdx.x + 64] = n;
  __syncthreads();
  %s
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
"""


def analysed(tmp_path, text: str) -> tuple[set[str], list[tuple[str, str]]]:
    """(the context functions' names, each proved call as (its function, its conditions joined))."""
    src = tmp_path / "c.cu"
    src.write_text(HEAD + text)
    prog = query(parse_file(src))
    an = KernelFacts(prog)
    shared_intervals(prog, an)
    data = src.read_bytes()
    calls = [(c.function, data[start:end].decode(), " && ".join(dict.fromkeys(c.conds)))
             for (_, start, end), c in sorted(an.context_calls.items(), key=lambda kv: kv[0])]
    return set(an.context_functions()), calls


def test_a_call_on_words_apart_is_proved_with_its_launch_and_bounds_conditions(tmp_path):
    names, calls = analysed(tmp_path, SWAP + KERNEL % "swap(s[2 * threadIdx.x], s[2 * threadIdx.x + 1], 1);")
    assert names == {"swap"}
    assert calls == [("swap", "swap(s[2 * threadIdx.x], s[2 * threadIdx.x + 1], 1)",
                      "(blockDim.y == 1 && blockDim.z == 1) && ::hirace::in_declared(&(s[2 * threadIdx.x]), s, "
                      "sizeof(s)) && ::hirace::in_declared(&(s[2 * threadIdx.x + 1]), s, sizeof(s))")]


@pytest.mark.parametrize("call", [
    "swap(s[threadIdx.x], s[threadIdx.x + 1], 1);",                       # thread t's b is thread t + 1's a
    "swap(s[2 * threadIdx.x], s[2 * threadIdx.x + 1], 1); s[3] = 0;",     # another write meets thread 1's a
    "int &r = s[2 * threadIdx.x]; swap(r, s[2 * threadIdx.x + 1], 1);",   # a local reference: shared memory
    "swap(s[2 * threadIdx.x + n++], s[2 * threadIdx.x + 1], 1);",         # evaluated again by the condition
    "swap(s[2 * threadIdx.x + out[0] * 0], s[2 * threadIdx.x + 1], 1);",  # a read the condition would repeat
    "swap(s[2 * threadIdx.x], s[2 * threadIdx.x + 1], n = 1);",           # another argument changes what they name
])
def test_a_call_whose_words_may_meet_another_threads_is_not_proved(tmp_path, call):
    names, calls = analysed(tmp_path, SWAP + KERNEL % call)
    assert names == {"swap"} and calls == []


def test_a_call_on_the_threads_own_locals_needs_nothing(tmp_path):
    _, calls = analysed(tmp_path, SWAP + KERNEL % "int lo = s[threadIdx.x], hi = lo + 1; swap(lo, hi, 0); out[0] = lo;")
    assert calls == [("swap", "swap(lo, hi, 0)", "")]   # (the call passes `(true)`)


@pytest.mark.parametrize("function", [
    "template <class T> __device__ void swap(T &a, T &b, int dir) { T t = a; a = b; b = t; }",   # a template
    "__device__ void swap(int &a, int &b, int dir);\n" + SWAP,                          # declared before
    "__device__ int g; __device__ void swap(int &a, int &b, int dir) { g = a; b = a; }",  # another variable
    "__device__ void swap(int &a, int &b, int *p) { p[0] = a; b = a; }",                 # through a pointer
    "__device__ void swap(int &a, int &b, int dir) { atomicAdd(&a, b); }",               # an atomic, an address
    "__device__ void poke(int &x) { x = 0; }\n__device__ void swap(int &a, int &b, int dir) { poke(a); b = 1; }",
    SWAP + "__device__ void (*pick)(int &, int &, int) = swap;",                        # its address taken
])
def test_a_function_that_may_touch_other_words_takes_no_part(tmp_path, function):
    call = "swap(s[2 * threadIdx.x], s[2 * threadIdx.x + 1], 1);"
    if "int *p" in function:
        call = "swap(s[2 * threadIdx.x], s[2 * threadIdx.x + 1], out);"
    names, calls = analysed(tmp_path, function + KERNEL % call)
    assert "swap" not in names and calls == []


def test_a_call_that_leaves_a_default_argument_out_is_not_proved(tmp_path):
    """The condition would take the default argument's place."""
    fn = "__device__ inline void swap(int &a, int &b, int dir = 1) { if ((a > b) == dir) { int t = a; a = b; b = t; } }\n"
    names, calls = analysed(tmp_path, fn + KERNEL % "swap(s[2 * threadIdx.x], s[2 * threadIdx.x + 1]);")
    assert names == {"swap"} and calls == []


OUTSIDE = HEAD + SWAP + """#include <cstdio>
__global__ void k(int *out, int n) {
  __shared__ int s[128];
  s[threadIdx.x] = n; s[threadIdx.x + 64] = n;
  __syncthreads();
  swap(s[2 * threadIdx.x + n], s[2 * threadIdx.x + n + 1], 1);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
int main() {
  int *out;
  cudaMalloc(&out, 64 * sizeof(int));
  k<<<1, 64>>>(out, 0);
  k<<<1, 64>>>(out, 64);   // threads 32 on swap words past the array's end
  cudaDeviceSynchronize();
  printf("done\\n");
  return 0;
}
"""


def test_a_kernels_quiet_version_passes_its_proved_calls_and_bounds_their_arguments(tmp_path):
    """The kernel's every call of a context function is proved: its quiet version calls it quiet (`true`), with
    each reference argument's bounds tested at the call (its journal, as the version's own sites); an argument
    past the array's end is reported at the function's access through that parameter and diverted."""
    from hirace import runner
    from hirace.config import Config
    from instrument import logs
    from instrument.backends.cpu import CpuBackend
    from instrument.protocol import HIRACE_LOG, Env
    from hirace.results import collect
    src = tmp_path / "outside.cu"
    src.write_text(OUTSIDE)
    built = runner.build([src], CpuBackend(), tmp_path / "b", Config())
    text = (tmp_path / "b" / "src" / "outside.cu").read_text()
    assert "swap((*::hirace::q::rmw_apart(__hirace_journal, &(s[2 * threadIdx.x + n])" in text and ", 1, true);" in text
    found = {}
    for versions in ("1", "0"):
        log = tmp_path / f"log{versions}.jsonl"
        r = built.backend.run(built.exe, env={Env.HIRACE_LOG: str(log), Env.HIRACE_QUIET_VERSIONS: versions})
        assert r.returncode == 0 and r.stdout == "done\n", r.stderr
        assert [x.quiet for x in logs.read(log, HIRACE_LOG, "hirace's log")["launch"]] == [int(versions)] * 2
        report = collect(log, built.sites)
        assert not report.races
        found[versions] = {(m.launch, m.site.line) for m in report.memory_errors}
    # (swap's line: where its access through the parameter is; the kernel's own whole check of a reference
    # knows no array, only the block's shared memory, so it may miss what the version's bounds test sees)
    assert found["1"] == {(1, 2)} and found["0"] <= found["1"]


def test_a_kernel_with_an_unproved_call_in_a_macro_gets_no_quiet_version(tmp_path):
    """A call the macro's expansion makes is not proved (its flag cannot be inserted there) and runs the function
    checked: the kernel keeps no version, whose calls would run those checks without the clocks."""
    from hirace import runner
    from hirace.config import Config
    src = tmp_path / "m.cu"
    body = "swap(s[2 * threadIdx.x], s[2 * threadIdx.x + 1], 1);\n  __syncthreads();\n  %s"
    for extra, version in (("", True), ("SWAP_UP(s[2 * threadIdx.x], s[2 * threadIdx.x + 1]);", False)):
        src.write_text(HEAD + SWAP + "#define SWAP_UP(x, y) swap(x, y, 1)\n" + KERNEL % (body % extra))
        out = tmp_path / f"i{int(version)}"
        runner.instrument([src], out, Config())
        assert ("k__hirace_q(" in (out / "m.cu").read_text()) == version, extra
