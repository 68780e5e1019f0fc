"""The shadow's granularity per buffer: what the planner finds per kernel (hirace/buffer_widths.py),
what the launches pass, and what the host makes of it (runtime hirace/host_granularity.h)."""
from __future__ import annotations

import pytest
from conftest import CUDA

from hirace import runner
from hirace.buffer_widths import KernelWidths, kernel_widths
from hirace.config import Config
from hirace.proofs.intervals import KernelFacts
from hirace.results import collect
from instrument import logs
from instrument.backends.cpu import CpuBackend
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query
from instrument.protocol import HIRACE_LOG, Env


def widths(tmp_path, text: str) -> dict[str, KernelWidths]:
    src = tmp_path / "k.cu"
    src.write_text(text)
    prog = query(parse_file(src))
    return kernel_widths(prog, KernelFacts(prog))


def test_a_parameters_narrow_accesses_count_for_its_buffer_alone(tmp_path):
    assert widths(tmp_path, """
struct P { short a; char b; };
__global__ void k(const bool *m, int *c, const P *p, double *d, short *s) {
  int i = threadIdx.x;
  if (m[i]) c[i] = p[i].b + p->a + (int)d[i];
  s[i] = 1;
}""") == {"k": KernelWidths(((0, 0), (2, 0), (4, 1)), 2)}


@pytest.mark.parametrize("body, other", [
    ("unsigned char *b = (unsigned char *)a; b[threadIdx.x] = 1;", 0),    # a pointer it made
    ("a = (int *)g + 1; ((char *)a)[threadIdx.x] = 1;", 0),                # a parameter it points elsewhere
    ("g[threadIdx.x] = 1;", 1),                                            # a __device__ variable
    ("a[threadIdx.x] = 1;", 2),                                            # none narrower than 4 bytes
])
def test_every_other_narrow_access_counts_for_every_buffer(tmp_path, body, other):
    got = widths(tmp_path, "__device__ short g[64];\n__global__ void k(int *a) { %s }" % body)
    assert got == {"k": KernelWidths((), other)}, body


@pytest.mark.parametrize("body", [
    "{ unsigned char *p = q; p[threadIdx.x] = 1; }",                                 # a local in an inner block
    "auto put = [](unsigned char *p, int i) { p[i] = 1; }; put(q, threadIdx.x);",   # a lambda's parameter
])
def test_a_name_the_body_declares_again_is_no_parameter(tmp_path, body):
    """`p` there names q's buffer: its bytes count for every buffer (q's stayed 4-byte words: neighbouring
    bytes written by two threads were reported as a race)."""
    got = widths(tmp_path, "__global__ void k(int *p, unsigned char *q) { p[threadIdx.x] = 1; %s }" % body)
    assert got == {"k": KernelWidths((), 0)}, body


@pytest.mark.parametrize("decl, access", [
    ("struct C4 { unsigned char r, g, b, a; }; struct P { unsigned char t; C4 c; };", "p[i].c = C4{1, 2, 3, 4}"),
    ("struct __attribute__((packed)) P { unsigned char t; int v; };", "p[i].v = 1"),
])
def test_an_access_is_no_wider_than_its_alignment(tmp_path, decl, access):
    """A 4-byte member at offset 1 of a 5-byte element spans two 4-byte words, one shared with its
    neighbour: the buffer takes bytes (it kept 4-byte words, and neighbours raced)."""
    got = widths(tmp_path, "%s\n__global__ void k(P *p) { int i = threadIdx.x; %s; }" % (decl, access))
    assert got == {"k": KernelWidths(((0, 0),), 2)}


def test_a_launch_names_a_template_kernel_only_where_it_gives_every_template_argument(tmp_path):
    """`k<N>` of a template of two parameters in a function template names no one function: the launch's
    `pointee_shift<0>((k<N>), 2u)` did not compile (the elements then count as bytes)."""
    got = widths(tmp_path, """
template <int N, class T> __global__ void k(T *p, bool *m) { m[threadIdx.x] = true; p[threadIdx.x] = T(N); }
template <int N> void run(unsigned char *p, bool *m) { k<N><<<1, 32>>>(p, m); }""")["k"]
    assert got.templates == 2
    assert got.kernel("k<N>", False) == "" and got.kernel("k<N, T>", False) == "(k<N, T>)"
    assert got.kernel("k<1, float>", True) == ""
    assert "pointee_shift" not in got.text(["p", "m"], got.kernel("k<N>", False))


def test_a_device_function_or_a_device_memcpy_counts_for_every_buffer_in_the_kernels_that_call_it(tmp_path):
    assert widths(tmp_path, """
__device__ void put(char *p, int i) { p[i] = 1; }
__device__ void via(char *p) { put(p, threadIdx.x); }
__global__ void k(char *c) { via(c); }
__global__ void j(int *a) { a[threadIdx.x] = 0; }""") == {"k": KernelWidths((), 0), "j": KernelWidths((), 2)}
    assert widths(tmp_path, """
__device__ void copy(int *a, const int *b) { memcpy(a, b, 3); }
__global__ void k(int *a, const int *b) { copy(a, b); }
__global__ void j(int *a) { a[threadIdx.x] = 0; }""") == {"k": KernelWidths((), 0), "j": KernelWidths((), 2)}


def test_the_launch_passes_the_widths_where_its_arguments_can_be_evaluated_again(tmp_path):
    src = tmp_path / "p.cu"
    src.write_text("""
__global__ void k(bool *m, int *c) { m[threadIdx.x] = c[threadIdx.x] != 0; }
bool *pick(bool *p) { return p; }
bool *(*table[1])(bool *) = {pick};
int main() {
  bool *m; int *c;
  cudaMalloc(&m, 32); cudaMalloc(&c, 128);
  k<<<1, 32>>>(m, c);
  k<<<1, 32>>>(pick(m), c);
  k<<<1, 32>>>(table[0](m), c);
  k<<<1, 32>>>((bool *)(m), c);
  return 0;
}""")
    built = runner.build([src], CpuBackend(), tmp_path / "b", Config())
    text = "\n".join(p.read_text() for p in (tmp_path / "b" / "src").rglob("p.cu*"))
    launches = [ln for ln in text.splitlines() if "before_launch(" in ln]
    assert len(launches) == 4, text
    assert "buffer_widths({::hirace::host::arg_address(m)}, {0u}, 2u)" in launches[0]
    # a call, also through a table of functions (it ran once more per evaluation), or a cast of a
    # parenthesized operand (which the text cannot tell from a call): evaluated once, by the launch
    assert all("buffer_widths" not in ln for ln in launches[1:]), launches
    assert "table[0](m)" not in launches[2].split("before_launch(")[0], launches[2]   # (quiet_params' too)


def test_a_template_kernels_elements_take_their_width_from_the_launch(tmp_path):
    src = tmp_path / "t.cu"
    src.write_text("""
template <class T> __global__ void k(T *a, const bool *m) { if (m[threadIdx.x]) a[threadIdx.x] = T(1); }
template <class T> void run(T *a, const bool *m) { k<T><<<1, 32>>>(a, m); }
int main() { int *a; bool *m; cudaMalloc(&a, 128); cudaMalloc(&m, 32); run(a, m); return 0; }""")
    assert widths(tmp_path, src.read_text()) == {"k": KernelWidths(((1, 0),), 2, (0,))}
    runner.build([src], CpuBackend(), tmp_path / "b", Config())
    text = (tmp_path / "b" / "src" / "t.cu").read_text()
    assert ("buffer_widths({::hirace::host::arg_address(a), ::hirace::host::arg_address(m)}, "
            "{::hirace::host::pointee_shift<0>((k<T>), 2u), 0u}, 2u)") in text


def _run(built, tmp_path, *args, out="03020100 0000003f 01010101\n", **env):
    log = tmp_path / f"log{len(list(tmp_path.iterdir()))}.jsonl"
    r = built.backend.run(built.exe, args, env={Env.HIRACE_LOG: str(log), **env})
    assert r.returncode == 0 and r.stdout == out, r.stderr
    got = logs.read(log, HIRACE_LOG, "hirace's log")
    report = collect(log, built.sites)
    return ({b.name: b.granularity for b in got["buffer"]},
            sorted((x.site.line, x.kind, x.offset) for x in report.races), got["end"][0])


def test_each_buffer_takes_the_granularity_of_the_accesses_that_reach_it(tmp_path):
    """engine/buffer_widths.cu: `cost` keeps 4-byte words beside the bool arrays' bytes; `bytes` becomes
    byte-grained before the launch that writes its bytes through a parameter, `far` and `chars` as the
    template's elements are (an int, a byte: the launch's compiler says), every buffer before the
    launch that writes bytes through a pointer it made; no neighbouring bytes race; the one race is
    reported at its word."""
    built = runner.build([CUDA / "engine" / "buffer_widths.cu"], CpuBackend(), tmp_path / "b", Config())
    grains, races, end = _run(built, tmp_path, out="03020100 0000003f 00000005\n")
    assert grains == {"&mask": 1, "&seen": 1, "&cost": 4, "&bytes": 1, "&other": 4, "&far": 4, "&chars": 1}
    assert races == [(14, "write-write", 0)]
    poked = _run(built, tmp_path, "poke")
    assert set(poked[0].values()) == {1} and poked[1] == races
    # one granularity for all (hirace.toml's): the same verdicts, a larger shadow
    one = runner.build([CUDA / "engine" / "buffer_widths.cu"], CpuBackend(), tmp_path / "one",
                       Config(granularity=1))
    grains1, races1, end1 = _run(one, tmp_path, out="03020100 0000003f 00000005\n")
    assert set(grains1.values()) == {1} and races1 == races
    assert end.tool_bytes < end1.tool_bytes


GRAPH_NODE = """#include <cstdio>
__global__ void widen(int *out, const char *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}
int main(int argc, char **argv) {
  int *out;
  char *in;
  cudaMalloc(&out, 256 * sizeof(int));
  cudaMalloc(&in, 256);
  cudaMemset(in, 1, 256);
  void *args[] = {&out, argc > 1 ? (void *)&out : (void *)&in};   // ("alias": the same buffer twice)
  cudaKernelNodeParams p = {};
  p.func = (void *)widen;
  p.gridDim = dim3(4);
  p.blockDim = dim3(64);
  p.kernelParams = args;
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t n;
  cudaGraphAddKernelNode(&n, g, nullptr, 0, &p);
  cudaGraphExec_t x;
  cudaGraphInstantiate(&x, g, 0);
  cudaGraphLaunch(x, 0);
  cudaDeviceSynchronize();
  int h[2];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("%08x %08x\\n", h[0], h[1]);
  return 0;
}
"""



def test_a_graphs_kernel_node_takes_its_quiet_parameters_from_the_nodes_arguments(tmp_path):
    """A kernel node's launch is prepared from the node's own copies of its arguments (host_kernel_pointers.h
    params_prepare), as a `<<<...>>>` launch's from the call's: the read-only `in` and the own `out` are quiet
    (the launch record's `quiet_params`); where both arguments are one buffer, neither is, and the byte read
    races with the next thread's write."""
    src = tmp_path / "graph.cu"
    src.write_text(GRAPH_NODE)
    built = runner.build([src], CpuBackend(), tmp_path / "b", Config())
    runs = []
    for args, out in (((), "00000001 00000001\n"), (("alias",), "00000000 00000000\n")):
        log = tmp_path / f"log{len(args)}.jsonl"
        r = built.backend.run(built.exe, list(args), env={Env.HIRACE_LOG: str(log)})
        assert r.returncode == 0 and r.stdout == out, r.stderr
        got = logs.read(log, HIRACE_LOG, "hirace's log")
        runs.append(([x.quiet_params for x in got["launch"]], collect(log, built.sites).races))
    (quiet, races), (quiet_alias, races_alias) = runs
    assert quiet == [3] and races == []
    assert quiet_alias == [0] and races_alias and {x.site.line for x in races_alias} == {4}
