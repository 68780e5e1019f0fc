"""hirace/proofs/bounds.py: shared accesses whose index lies inside their array lose their bounds test in a
kernel's quiet version, under the launch condition the proof needs; what the proof cannot show keeps the
test, and a launch outside the condition runs the whole kernel, which reports the access."""
from __future__ import annotations

import pytest
from conftest import CUDA

from hirace import runner
from hirace.config import Config
from hirace.proofs.intervals import shared_intervals
from hirace.results import collect
from instrument import logs
from instrument.backends.cpu import CpuBackend
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query
from instrument.protocol import HIRACE_LOG, Env

HEAD = "#include <cuda_runtime.h>\n"


def inside(tmp_path, body: str) -> dict[str, tuple]:
    """The shared accesses shown inside their array, as `kind text` -> their caps ((d, level, less):
    blockDim.d at most the extent at that level, less `less`)."""
    src = tmp_path / "b.cu"
    src.write_text(HEAD + body)
    prog = query(parse_file(src))
    found = shared_intervals(prog).inside
    return {f"{a.kind} {a.text}": found[k] for a in prog.accesses
            if (k := (a.span.file, a.span.start, a.span.end)) in found}


def _after_a_tile(body: str) -> str:
    """A kernel that loads a 16-word tile, one word a thread, then runs `body` (which reads it into v)."""
    return f"""
__global__ void k(int *m) {{
  __shared__ int s[16];
  int v = 0;
  s[threadIdx.x] = m[threadIdx.x];
  __syncthreads();
  {body}
  m[threadIdx.x + 16] = v;
}}"""


TILES = """
template <int B> __global__ void mm(const float *a, float *c, int n) {
  __shared__ float as[B][B + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  float sum = 0;
  for (int t = 0; t < n; t += B) {
    as[ty][tx] = a[t + ty * n + tx];
    __syncthreads();
    for (int k = 0; k < B; ++k) sum += as[ty][k] * as[k][tx + 1];
    __syncthreads();
  }
  c[ty * n + tx] = sum;
}"""


def test_a_templates_tiles_read_in_its_inner_loop_are_inside_where_the_block_fits(tmp_path):
    found = inside(tmp_path, TILES)
    assert found["read as[ty][k]"] == (("y", 0, 0),)            # k < B; ty < blockDim.y <= B
    assert found["read as[k][tx + 1]"] == (("x", 1, 1),)        # tx + 1 <= B: blockDim.x <= (B + 1) - 1
    assert found["write as[ty][tx]"] == (("x", 1, 0), ("y", 0, 0))


@pytest.mark.parametrize("body, shown", [
    # the guards of the branches around it: a comparison, its negation, `!=` split into its two cases,
    # the else of a conjunction of equalities
    ("if (threadIdx.x > 0) v = s[threadIdx.x - 1];", True),
    ("if (threadIdx.x == 0) v = 0; else v = s[threadIdx.x - 1];", True),
    ("if (threadIdx.x != 0) v = s[threadIdx.x - 1];", True),
    ("if (threadIdx.x == 0 && threadIdx.y == 0) v = 0; else if (threadIdx.y == 0) v = s[threadIdx.x - 1];", True),
    ("v = s[threadIdx.x - 1];", False),                                 # thread 0 reads s[-1]
    ("if (threadIdx.x == 0 || threadIdx.y == 0) v = s[threadIdx.x - 1];", False),   # (1, 0) does not, (0, 0) does
    ("v = s[2 * threadIdx.x];", True),                                  # the block at most half the array
    ("v = s[threadIdx.x + 4];", True),                                  # four narrower
    ("v = s[m[threadIdx.x]];", False),                                  # an index read from memory
    ("for (int i = 0; i < 16; ++i) { v += s[i]; i += m[0]; }", False),  # a loop whose body moves its variable
    ("for (int i = 0; i <= 16; ++i) v += s[i];", False),                # one past the end
    ("for (int i = 15; i >= 0; --i) v += s[i];", True),
])
def test_what_the_proof_shows_and_what_keeps_the_bounds_test(tmp_path, body, shown):
    found = inside(tmp_path, _after_a_tile(body))
    reads = {t for t in found if t.startswith("read s[")}
    assert bool(reads) == shown, found


@pytest.mark.parametrize("body, caps", [
    ("v = s[threadIdx.x + 1];", (("x", 0, 1),)),
    ("v = s[threadIdx.x + 4];", (("x", 0, 4),)),    # (past the three tried first: the least that holds, halved)
    ("v = s[2 * threadIdx.x];", (("x", 0, 8),)),    # 2 * 7 = 14: eight threads at most
    ("for (int j = -3; j <= 3; ++j) if (threadIdx.x >= 3) v += s[threadIdx.x + j + 5];", (("x", 0, 8),)),
    ("v = s[threadIdx.x + 16];", None),             # past the array for every block
])
def test_a_block_narrower_than_the_array_by_any_number(tmp_path, body, caps):
    """A numeric extent E: where no cap of up to three less holds, the least l below E with `blockDim.x + l
    <= E` (convolutionSeparable's taps `s_Data[ty][tx + i * 16 + j]`: blocks at most 24 wide, l = 136)."""
    found = inside(tmp_path, _after_a_tile(body))
    got = [c for t, c in found.items() if t.startswith("read s[")]
    assert got == ([caps] if caps is not None else []), found


@pytest.mark.parametrize("body", [
    # (each once shown inside, wrongly: the review of the proof, session 36)
    "long long prev = threadIdx.x - 1; v = s[prev + 1];",           # an unsigned value widened after it wrapped
    "if ((long long)(threadIdx.x - 1) >= 0) v = s[threadIdx.x - 1];",   # a guard that widens one: thread 0 passes
    "int g = blockIdx.x; if (g / 2 >= 0 && g / 2 < 16) { int g = blockIdx.x + 40; v = s[g / 2]; }",  # a shadowing local
    "for (int i = 0; (signed char)i < 16; i += 200) v += s[i];",    # a narrowing cast in the loop's condition
    "if (threadIdx.x + 4294967295u < 8u) v = s[threadIdx.x + 16];", # an unsigned guard that wraps (no cap helps)
    "int i = 100; switch (m[0]) { case 0: i = threadIdx.x; case 1: v = s[i]; }",   # a case label past i's assignment
    "int i = 0; if (m[0] == 0) (i) = 100; v = s[i];",                # a parenthesized assignment
])
def test_what_once_passed_for_inside_and_is_not(tmp_path, body):
    found = inside(tmp_path, _after_a_tile(body))
    assert not {t for t in found if t.startswith("read s[")}, found


def test_a_template_cap_past_the_arrays_extent_fails_the_host_test(tmp_path):
    """s[tx + 2] of an s[B] with B = 1: the cap reads `blockDim.x + 2 <= B` (never `blockDim.x <= B - 2`,
    which wraps): the launch of one thread runs the kernel, which reports the read."""
    src = tmp_path / "t.cu"
    src.write_text("""#include <cstdio>
template <int B> __global__ void k(const int *in, int *out) {
  __shared__ int s[B];
  if (threadIdx.x == 0) s[0] = in[blockIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x + 2];
}
int main() {
  int *in, *out;
  cudaMalloc(&in, 4 * sizeof(int));
  cudaMalloc(&out, 4 * sizeof(int));
  cudaMemset(in, 0, 4 * sizeof(int));
  k<1><<<1, 1>>>(in, out);
  cudaDeviceSynchronize();
  puts("done");
  return 0;
}
""")
    built = runner.build([src], CpuBackend(), tmp_path / "b", Config())
    assert [(x.line, x.inside) for x in built.sites if x.inside and "+ 2" in x.text] == \
        [(6, "(blockDim.x + 2 <= sizeof(s) / sizeof(s[0]))")]
    log = tmp_path / "log.jsonl"
    r = built.backend.run(built.exe, env={Env.HIRACE_LOG: str(log)})
    assert r.returncode == 0 and r.stdout == "done\n", r.stderr
    assert [(x.kernel, x.quiet) for x in logs.read(log, HIRACE_LOG, "hirace's log")["launch"]] == [("k", 0)]
    assert [(m.site.line, m.offset) for m in collect(log, built.sites).memory_errors] == [(6, 8)]


def _run(built, tmp_path, **env):
    log = tmp_path / f"log{len(list(tmp_path.iterdir()))}.jsonl"
    r = built.backend.run(built.exe, env={Env.HIRACE_LOG: str(log), **env})
    assert r.returncode == 0 and r.stdout == "sums 24296 3932\n", r.stderr
    report = collect(log, built.sites)
    return ([(x.kernel, x.quiet) for x in logs.read(log, HIRACE_LOG, "hirace's log")["launch"]],
            [(m.kernel, m.site.line, m.offset, m.thread) for m in report.memory_errors], report.races)


def test_on_the_cpu_backend_a_launch_outside_the_proofs_condition_runs_the_kernel_and_reports_it(tmp_path):
    """engine/inside_tiles.cu: mm<8> and halo's 16-thread launch run their versions (their tiles' reads
    with no test) and compute what the program does plain; halo's 17-thread launch breaks the cap its
    read `s[tx + 1]` needs, so the kernel runs and reports the read past the array."""
    built = runner.build([CUDA / "engine" / "inside_tiles.cu"], CpuBackend(), tmp_path / "b", Config())
    assert {(x.line, x.text, x.inside) for x in built.sites if x.inside} == {
        (17, "as[ty][k]", "(blockDim.y <= sizeof(as) / sizeof(as[0]))"),
        (17, "bs[k][tx]", "(blockDim.x <= sizeof(bs[0]) / sizeof(bs[0][0]))"),
        (26, "s[16]", "(true)"), (30, "s[tx]", "(blockDim.x <= sizeof(s) / sizeof(s[0]))"),
        (30, "s[tx + 1]", "(blockDim.x + 1 <= sizeof(s) / sizeof(s[0]))")}
    quiet, errors, races = _run(built, tmp_path)
    assert quiet == [("mm", 1), ("halo", 1), ("halo", 0)]
    assert errors == [("halo", 30, 68, (16, 0, 0))] and not races
    without = _run(built, tmp_path, **{Env.HIRACE_QUIET_VERSIONS: "0"})
    assert [q for _, q in without[0]] == [0, 0, 0] and without[1:] == (errors, races)


def test_the_versions_sites_shown_inside_are_the_accesses_as_written(tmp_path):
    ins = runner.instrument([CUDA / "engine" / "inside_tiles.cu"], tmp_path / "src", Config())
    text = ins.sources[0].read_text()
    version = text[text.index("mm__hirace_q("):text.index("mm__hirace_quiet_ok")]
    assert "(*::hirace::q::inside(&(as[ty][k]), 4u)) * (*::hirace::q::inside(&(bs[k][tx]), 5u))" in version
    # the kernel itself keeps each site's bounds test (it runs where the condition may not hold)
    kernel = text[:text.index("mm__hirace_q(")]
    assert "::hirace::rd_bounds(&(as[ty][k]), 4u, as, sizeof(as))" in kernel
    # the host's test holds the caps, in the extents of the template's arrays
    test = next(line for line in text.splitlines() if "halo__hirace_quiet_ok(dim3" in line)
    assert "__hirace_block.x + 1 <= 17" in test
