"""hirace/proofs/affine.py and hirace/proofs/apart.py: accesses of a shared array whose indices keep every
other thread's access off their word in their barrier interval get a bounds check only; what they
must not take (the races of the same programs) stays found."""
from __future__ import annotations

import json

import pytest

from hirace.proofs.affine import Lin, feasible
from hirace.proofs.intervals import shared_intervals
from hirace.proofs.proof import Rule
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query


X, Y = Lin.var("x"), Lin.var("y")


def one(k: int) -> Lin:
    return Lin(const=k)


def test_feasible_proves_only_systems_without_an_integer_solution():
    assert feasible([X.scale(16) - Y.scale(16) - one(18)], []) is False          # 16 (x - y) = 18
    assert feasible([X.scale(16) - Y.scale(16) - one(32)], []) is True           # x = y + 2
    assert feasible([], [X - one(3), one(2) - X]) is False                        # 3 <= x <= 2
    assert feasible([], [X.scale(2) - one(1), one(1) - X.scale(2)]) is False       # 2x = 1 over the integers
    assert feasible([X - Y], [X - one(1), Y.scale(-1)]) is False                  # x = y, x >= 1, y <= 0
    assert feasible([X - Y.scale(2)], [X - one(1), one(1) - X]) is False           # x = 2y = 1
    assert feasible([X + Y - one(10)], [X, Y, one(4) - X]) is True
    # 256 (k1 - k2) + 32 (y1 - y2) + (x1 - x2) = 0 with 0 <= x < 32, 1 <= y1 - y2 <= 7: only
    # fractional rounds k solve it (a 32 x 32 tile's rows written 8 apart by 8 rows of threads)
    v = {n: Lin.var(n) for n in ("k1", "k2", "y1", "y2", "x1", "x2")}
    eq = (v["k1"] - v["k2"]).scale(256) + (v["y1"] - v["y2"]).scale(32) + v["x1"] - v["x2"]
    rows = [v["x1"], one(31) - v["x1"], v["x2"], one(31) - v["x2"], v["y1"] - v["y2"] - one(1),
            one(7) - v["y1"] + v["y2"], v["k1"], v["k2"]]
    assert feasible([eq], rows) is False
    assert feasible([eq], rows[:-4] + [v["y1"] - v["y2"] - one(8)] + rows[-2:]) is True   # 8 rows apart


HEAD = "#include <cuda_runtime.h>\n"


def apart(tmp_path, body: str) -> dict[str, str]:
    """The accesses of a program proved apart, as text (with its kind) -> their launch condition
    ('' without, 'quiet' for a read that needs none)."""
    src = tmp_path / "a.cu"
    src.write_text(HEAD + body)
    prog = query(parse_file(src))
    found = shared_intervals(prog)
    quiet, alone = found.quiet, found.alone
    out = {}
    for a in prog.accesses:
        key = (a.span.file, a.span.start, a.span.end)
        if key in alone and alone[key].rule is Rule.APART:
            out[f"{a.kind} {a.text}"] = alone[key].condition().device()
        elif key in quiet and a.space == "shared":
            out[f"{a.kind} {a.text}"] = "quiet"
    return out


SOLVE = """
__global__ void k(float *m) {
  __shared__ float s[16][16];
  int i, j;
  for (i = 0; i < 16; i++) s[i][threadIdx.x] = m[i];
  __syncthreads();
  for (i = 0; i < 15; i++) {
    if (threadIdx.x %s i) {
      for (j = 0; j < i; j++) s[threadIdx.x][i] -= s[threadIdx.x][j] * s[j][i];
      s[threadIdx.x][i] /= s[i][i];
    }
    __syncthreads();
  }
  m[threadIdx.x] = s[threadIdx.x][0];
}"""


def test_a_triangular_solve_keeps_its_threads_apart(tmp_path):
    got = apart(tmp_path, SOLVE % ">")
    assert got == {
        "write s[i][threadIdx.x]": "(blockDim.x <= 16 && blockDim.y == 1 && blockDim.z == 1)",
        "rmw s[threadIdx.x][i]": "(blockDim.y == 1 && blockDim.z == 1)",
        "read s[threadIdx.x][j]": "quiet", "read s[j][i]": "quiet", "read s[i][i]": "quiet",
        "read s[threadIdx.x][0]": "quiet"}


def test_a_solve_whose_guard_lets_a_thread_write_what_others_read_keeps_the_check(tmp_path):
    got = apart(tmp_path, SOLVE % ">=")
    assert "rmw s[threadIdx.x][i]" not in got and "read s[i][i]" not in got
    assert got["read s[j][i]"] == "quiet"   # rows below i: never written in the pass


WAVE = """
__global__ void k(int *out) {
  __shared__ int t[17][17];
  int tx = threadIdx.x;
  for (int m = 0; m < 16; m++) {
    if (tx <= m) {
      int x = tx + 1, y = m - tx + 1;
      t[y][x] = t[y - 1][x - 1] + t[%s][x - 1] + t[y - 1][x];
    }
    __syncthreads();
  }
  out[tx] = t[16][tx + 1];
}"""


def test_a_wavefront_writes_a_diagonal_from_the_two_before_it(tmp_path):
    got = apart(tmp_path, WAVE % "y")
    assert got == {"write t[y][x]": "(blockDim.y == 1 && blockDim.z == 1)", "read t[y - 1][x - 1]": "quiet",
                   "read t[y][x - 1]": "quiet", "read t[y - 1][x]": "quiet", "read t[16][tx + 1]": "quiet"}


def test_a_wavefront_reading_its_own_diagonal_keeps_the_check(tmp_path):
    got = apart(tmp_path, WAVE % "y + 1")
    assert "write t[y][x]" not in got and "read t[y + 1][x - 1]" not in got


def test_a_tile_loaded_in_strides_of_the_blocks_height_keeps_its_rows_apart(tmp_path):
    got = apart(tmp_path, """
#define TILE 32
#define ROWS 8
__global__ void k(float *odata, const float *idata, int width) {
  __shared__ float tile[TILE][TILE];
  for (int i = 0; i < TILE; i += ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[i * width];
  __syncthreads();
  odata[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}""")
    assert got["write tile[threadIdx.y + i][threadIdx.x]"] == "(blockDim.x <= 32 && blockDim.y <= 8 && blockDim.z == 1)"


@pytest.mark.parametrize("body, control, loud, shown", [
    # the write after a round's barrier meets the next round's read of the same word
    ("for (int i = 0; i < 8; i++) { float v = s[i]; __syncthreads(); if (threadIdx.x == 0) s[i + 1] = v; }",
     "for (int i = 0; i < 8; i++) { float v = s[i]; __syncthreads(); if (threadIdx.x == 0) s[i + 9] = v; }",
     {"read s[i]", "write s[i + 1]"}, {"read s[i]", "write s[i + 9]"}),
    # the loop's variable changes in its body: its rounds are not known
    ("for (int i = 0; i < 8; i++) { s[2 * threadIdx.x + i] = 1; i += threadIdx.x & 1; __syncthreads(); }",
     "for (int i = 0; i < 8; i++) { s[2 * threadIdx.x + i] = 1; __syncthreads(); }",
     {"write s[2 * threadIdx.x + i]"}, {"write s[2 * threadIdx.x + i]"}),
    # an index through a variable assigned in a branch the access does not follow
    ("int q = 2 * threadIdx.x; if (threadIdx.x & 1) q = 0; s[q] = 1; __syncthreads();",
     "int q = 2 * threadIdx.x; s[q] = 1; __syncthreads();", {"write s[q]"}, {"write s[q]"}),
    # unsigned: in the first round i - 1 wraps and every thread passes the guard
    ("for (int i = 0; i < 3; i++) { if (threadIdx.x < i - 1) s[2 * i] = 1; __syncthreads(); }",
     "for (int i = 0; i < 3; i++) { if (threadIdx.x < i + 1 && threadIdx.x == i) s[2 * i] = 1; __syncthreads(); }",
     {"write s[2 * i]"}, {"write s[2 * i]"}),
    # a call that may write shared memory
    ("s[2 * threadIdx.x] = 1; poke(s); __syncthreads();", "s[2 * threadIdx.x] = 1; __syncthreads();",
     {"write s[2 * threadIdx.x]"}, {"write s[2 * threadIdx.x]"}),
    # a mask of no power of two (5 = 0b101): threads 2 and 4 both write s[4]
    ("for (int st = 6; st > 0; st >>= 1) { int lo = threadIdx.x & (st - 1); s[((threadIdx.x - lo) << 1) + lo] = 1; "
     "__syncthreads(); }",
     "for (int st = 8; st > 0; st >>= 1) { int lo = threadIdx.x & (st - 1); s[((threadIdx.x - lo) << 1) + lo] = 1; "
     "__syncthreads(); }",
     {"write s[((threadIdx.x - lo) << 1) + lo]"}, {"write s[((threadIdx.x - lo) << 1) + lo]"}),
    # a butterfly's partner two strides on where the pairs are one stride wide: thread 0's s[8] is thread 4's s[i0]
    ("for (int st = 4; st > 0; st >>= 1) { int lo = threadIdx.x & (st - 1); int i0 = ((threadIdx.x - lo) << 1) + lo; "
     "s[i0] = 1; s[i0 + 2 * st] = 2; __syncthreads(); }",
     "for (int st = 4; st > 0; st >>= 1) { int lo = threadIdx.x & (st - 1); int i0 = ((threadIdx.x - lo) << 1) + lo; "
     "s[i0] = 1; s[i0 + st] = 2; __syncthreads(); }",
     {"write s[i0]", "write s[i0 + 2 * st]"}, {"write s[i0]", "write s[i0 + st]"}),
    # a stride that may reach 0 in the loop (`st >= 0`): its mask is then every bit
    ("for (int st = 4; st >= 0; st >>= 1) { int lo = threadIdx.x & (st - 1); int i0 = ((threadIdx.x - lo) << 1) + lo; "
     "s[i0] = 1; s[i0 + st] = 2; __syncthreads(); if (st == 0) break; }",
     "for (int st = 4; st > 0; st >>= 1) { int lo = threadIdx.x & (st - 1); int i0 = ((threadIdx.x - lo) << 1) + lo; "
     "s[i0] = 1; s[i0 + st] = 2; __syncthreads(); }",
     {"write s[i0]", "write s[i0 + st]"}, {"write s[i0]", "write s[i0 + st]"}),
    # block-stride loops: the second one's word is the next thread's of the first
    ("for (int i = threadIdx.x; i < 32; i += blockDim.x) s[i] = 1; "
     "for (int i = threadIdx.x; i < 31; i += blockDim.x) s[i + 1] = 2; __syncthreads();",
     "for (int i = threadIdx.x; i < 32; i += blockDim.x) s[i] = 1; "
     "for (int i = threadIdx.x; i < 31; i += blockDim.x) s[i + 32] = 2; __syncthreads();",
     {"write s[i]", "write s[i + 1]"}, {"write s[i]", "write s[i + 32]"}),
    # a stride of half a block is no block stride
    ("for (int i = threadIdx.x; i < 64; i += blockDim.x / 2) s[i] = 1; __syncthreads();",
     "for (int i = threadIdx.x; i < 64; i += blockDim.x) s[i] = 1; __syncthreads();", {"write s[i]"}, {"write s[i]"}),
    # a barrier only where n is odd: with n even the neighbour's word is read in the write's interval
    ("s[threadIdx.x] = 1; if (n & 1) { __syncthreads(); } out[1] = s[threadIdx.x + 1]; __syncthreads();",
     "s[threadIdx.x] = 1; __syncthreads(); out[1] = s[threadIdx.x + 1]; __syncthreads();",
     {"write s[threadIdx.x]", "read s[threadIdx.x + 1]"}, {"read s[threadIdx.x + 1]"}),
    # a barrier under a condition the block's threads may compute apart: not analysed
    ("s[2 * threadIdx.x] = 1; if (threadIdx.x & 1) { __syncthreads(); } __syncthreads();",
     "s[2 * threadIdx.x] = 1; if (n & 1) { __syncthreads(); } __syncthreads();",
     {"write s[2 * threadIdx.x]"}, {"write s[2 * threadIdx.x]"}),
    # a tree whose one barrier sits under a uniform `if`: with n even no barrier ends a round
    ("for (unsigned d = 32; d > 0; d >>= 1) { if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d]; "
     "if (n & 1) { __syncthreads(); } } __syncthreads();",
     "for (unsigned d = 32; d > 0; d >>= 1) { if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d]; "
     "__syncthreads(); }",
     {"read s[threadIdx.x + d]"}, {"read s[threadIdx.x + d]"}),
    # a parameter changed through its address is no condition the block computes alike
    ("unsigned *p = &n; *p = threadIdx.x & 1; __syncthreads(); if (n) { __syncthreads(); } s[2 * threadIdx.x] = 1; "
     "__syncthreads();",
     "__syncthreads(); if (n) { __syncthreads(); } s[2 * threadIdx.x] = 1; __syncthreads();",
     {"write s[2 * threadIdx.x]"}, {"write s[2 * threadIdx.x]"}),
    # a pointer moved from a parameter by a difference of pointers, or from a parameter made to point elsewhere
    ("float *q = out + (s - out); q[2 * threadIdx.x + 1] = 1; s[2 * threadIdx.x] = 1; __syncthreads();",
     "float *q = out + 3; q[2 * threadIdx.x + 1] = 1; s[2 * threadIdx.x] = 1; __syncthreads();",
     {"write s[2 * threadIdx.x]"}, {"write s[2 * threadIdx.x]"}),
    ("float **pp = &out; *pp = s; float *q = out + 1; q[2 * threadIdx.x] = 1; s[2 * threadIdx.x] = 1; __syncthreads();",
     "float *q = out + 1; q[2 * threadIdx.x] = 1; s[2 * threadIdx.x] = 1; __syncthreads();",
     {"write s[2 * threadIdx.x]"}, {"write s[2 * threadIdx.x]"}),
    # a pointer that may point into the shared array; one made from a parameter does not
    ("float *q = threadIdx.x < 99 ? s : out; q[2 * threadIdx.x + 1] = 1; s[2 * threadIdx.x] = 1; __syncthreads();",
     "float *q = out + 3; q[2 * threadIdx.x + 1] = 1; s[2 * threadIdx.x] = 1; __syncthreads();",
     {"write s[2 * threadIdx.x]"}, {"write s[2 * threadIdx.x]"}),
])
def test_what_the_analysis_cannot_show_keeps_the_check(tmp_path, body, control, loud, shown):
    """Each case beside a control without the flaw, whose accesses are shown apart."""
    code = """
__device__ void poke(float *p) { p[0] = 0; }
__global__ void k(float *out, unsigned n) {
  __shared__ float s[64];
  %s
  out[threadIdx.x] = s[threadIdx.x];
}"""
    got = apart(tmp_path, code % body)
    assert not loud & set(got), got
    assert shown <= set(apart(tmp_path, code % control))


# engine/apart.cu: (launch, line) of every race; launches 0, 3 and 5 are race-free
APART_RACES = [(1, 9), (2, 33), (2, 34), (4, 48), (6, 83), (7, 95), (7, 97)]


@pytest.mark.parametrize("flag", ["--quiet-reads", "--no-quiet-reads"])
def test_tiles_updated_in_place_report_the_same_races_with_and_without_the_proofs(run_cli, tmp_path, flag):
    """engine/apart.cu on the cpu backend: the triangular solve, the sweep and the wavefront are
    race-free; the solve in 16 x 2 blocks (the proof needs one row of threads), the sweep in 32
    threads (it needs at most 17), the solve whose guard lets thread i write s[i][i], the skewed
    wavefront and the write that meets the next round's reads race, with and without the proofs."""
    from conftest import CUDA
    src = CUDA / "engine" / "apart.cu"
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", flag, "--format", "json", "--output", out, src)
    assert r.returncode == 1 and r.stdout == "solve 101.482 wave 16\n", r.stderr
    doc = json.loads(out.read_text())
    assert sorted({(x["launch"], x["site"]["line"]) for x in doc["races"]}) == APART_RACES
    assert doc["memory_errors"] == []
    if flag == "--quiet-reads":
        ins = run_cli("hirace.cli", "instrument", "-o", tmp_path / "i", src)
        assert ins.returncode == 0, ins.stderr
        text = (tmp_path / "i" / "apart.cu").read_text()
        for kernel, end in [("solve", "solve_ge"), ("sweep", "wave"), ("wave", "wave_skew")]:
            body = text[text.index(f"__global__ void {kernel}("):text.index(f"__global__ void {end}(")]
            # every access of the shared tile is only bounds-checked (the global ones are checked)
            assert not any(f"::hirace::{f}(&(s[" in body or f"::hirace::{f}(&(t[" in body
                           for f in ("rd", "wr", "rmw")), kernel
        assert "::hirace::wr(&(s[i + 1])" in text and "::hirace::rd(&(s[i])" in text   # wrap


def test_a_kernel_whose_shared_sites_are_all_quiet_enters_without_clearing_its_shadow(run_cli, tmp_path):
    """hirace/planner.py: where every shared-memory site of a kernel is only bounds-checked, its
    block_entry comes after its shared arrays' declarations with the sites' launch conditions (the
    shared shadow is then never read, so it is not cleared); a kernel with a site checked whole, or
    with an access before its declarations, enters as before."""
    src = tmp_path / "k.cu"
    src.write_text(HEAD + """
__global__ void quiet(float *out) {
  __shared__ float s[16][16];
  for (int i = 0; i < 16; i++) s[i][threadIdx.x] = out[i];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x][0];
}
__global__ void loud(float *out) {
  __shared__ float s[16];
  s[threadIdx.x % 4] = 1;
  __syncthreads();
  out[threadIdx.x] = s[0];
}
__global__ void early(float *out) {
  float v = out[0];
  __shared__ float s[16];
  s[threadIdx.x] = v;
  __syncthreads();
  out[threadIdx.x] = s[15 - threadIdx.x];
}
int main() { return 0; }
""")
    r = run_cli("hirace.cli", "instrument", "-o", tmp_path / "i", src)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "i" / "k.cu").read_text()
    assert "__shared__ float s[16][16]; ::hirace::block_entry((blockDim.x <= 16 && blockDim.y == 1 && " \
           "blockDim.z == 1));" in text
    for kernel in ("loud", "early"):   # (at the start, with the own-index tests)
        first = text[text.index(f"void {kernel}(float *out) {{"):].split("\n")[0]
        assert first.endswith(" ::hirace::block_entry();"), first


def test_a_walsh_transform_keeps_its_butterflies_apart(tmp_path):
    """A radix-4 stage whose stride is a power of two (`1 << log2N`, shifted right in a loop whose condition
    keeps it above 0), under a barrier taken where a parameter is odd, in the launch's dynamic shared area
    loaded and stored in block strides (fastWalshTransform's fwtBatch1Kernel), through a pointer moved from a
    parameter: every shared access apart, the final read quiet."""
    got = apart(tmp_path, """
__global__ void fwt(float *out, const float *in, int log2N) {
  const int N = 1 << log2N;
  extern __shared__ float d[];
  float *dst = out + blockIdx.x * N;
  for (int pos = threadIdx.x; pos < N; pos += blockDim.x) d[pos] = in[pos];
  const int pos = threadIdx.x;
  for (int stride = N >> 2; stride > 0; stride >>= 2) {
    int lo = pos & (stride - 1);
    int i0 = ((pos - lo) << 2) + lo;
    int i1 = i0 + stride, i2 = i1 + stride, i3 = i2 + stride;
    __syncthreads();
    float a = d[i0], b = d[i1], c = d[i2], e = d[i3];
    d[i0] = a + b; d[i1] = a - b; d[i2] = c + e; d[i3] = c - e;
  }
  if (log2N & 1) {
    __syncthreads();
    for (int p = threadIdx.x; p < N / 2; p += blockDim.x) {
      int j0 = p << 1;
      float a = d[j0], b = d[j0 + 1];
      d[j0] = a + b; d[j0 + 1] = a - b;
    }
  }
  __syncthreads();
  for (int p = threadIdx.x; p < N; p += blockDim.x) dst[p] = d[p];
}""")
    rows = "(blockDim.y == 1 && blockDim.z == 1)"
    want = {f"{k} d[{i}]": rows for k in ("read", "write") for i in ("i0", "i1", "i2", "i3", "j0", "j0 + 1")}
    want["write d[pos]"] = rows
    want["read d[p]"] = "quiet"
    assert got == want


MERGE = """
__global__ void merge(int *out, %s n) {
  __shared__ int s[128];
  s[threadIdx.x] = out[threadIdx.x];
  s[threadIdx.x + 64] = out[threadIdx.x + 64];
  for (unsigned stride = n / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    int a = s[pos];
    s[pos + stride] = a;
  }
}"""


def test_a_stride_from_an_unsigned_parameter_is_a_power_of_two_where_the_launch_passes_one(tmp_path):
    """sortingNetworks' last merge, `for (uint stride = arrayLength / 2; ...)`: the parameter taken for a power of
    two (or 0) is a condition of every proof of the kernel; a signed one may be negative, which the conversion to
    unsigned makes no power of two: not taken."""
    got = apart(tmp_path, MERGE % "unsigned")
    assert got == {"read s[pos]": "(((n) & ((n) - 1)) == 0)",
                   "write s[pos + stride]": "(((n) & ((n) - 1)) == 0 && blockDim.y == 1 && blockDim.z == 1)"}
    assert apart(tmp_path, MERGE % "int") == {}
    for change in ("((unsigned &)n) = 12;", "(n > 4 ? n : n) = 12;", "unsigned &m = n; m = 12;"):   # (it may change)
        changed = MERGE.replace("  for (unsigned stride", f"  {change}\n  for (unsigned stride")
        assert apart(tmp_path, changed % "unsigned") == {}, change


def test_two_extern_arrays_are_one_area(tmp_path):
    """The kernel's extern arrays name one dynamic area: a second name may reach any word of the first."""
    one = apart(tmp_path, """
__global__ void k(float *out) {
  extern __shared__ float a[];
  a[2 * threadIdx.x] = 1; a[2 * threadIdx.x + 1] = 2;
  __syncthreads();
  out[threadIdx.x] = a[threadIdx.x];
}""")
    assert one == {"write a[2 * threadIdx.x]": "(blockDim.y == 1 && blockDim.z == 1)",
                   "write a[2 * threadIdx.x + 1]": "(blockDim.y == 1 && blockDim.z == 1)", "read a[threadIdx.x]": "quiet"}
    two = apart(tmp_path, """
__global__ void k(float *out) {
  extern __shared__ float a[];
  extern __shared__ float b[];
  a[2 * threadIdx.x] = 1; b[2 * threadIdx.x + 2] = 2;
  __syncthreads();
  out[threadIdx.x] = a[threadIdx.x];
}""")
    assert "write a[2 * threadIdx.x]" not in two and "write b[2 * threadIdx.x + 2]" not in two


@pytest.mark.parametrize("width, shown", [(81, "(blockDim.y <= 8 && blockDim.z == 1)"),
                                          (60, "(blockDim.y <= 4 && blockDim.z == 1)"), (9, None)])
def test_a_tile_read_down_its_columns_caps_the_blocks_height(tmp_path, width, shown):
    """convolutionSeparable's column filter: `s[threadIdx.x][threadIdx.y + 8 * i]` keeps its threads apart
    only where the block is low enough that one column's words never reach the next's (y capped first:
    no cap on x does it); a row of 9 words meets the next column's in any block more than one high."""
    got = apart(tmp_path, """
__global__ void k(float *out, const float *in) {
  __shared__ float s[16][%d];
  for (int i = 1; i < 9; i++) s[threadIdx.x][threadIdx.y + i * 8] = in[i];
  __syncthreads();
  out[0] = s[threadIdx.x][threadIdx.y];
}""" % width)
    assert got.get("write s[threadIdx.x][threadIdx.y + i * 8]") == shown


@pytest.mark.parametrize("pragma", ["#pragma unroll 16", ""])
def test_a_barrier_loop_after_a_pragma_is_still_a_loop(tmp_path, pragma):
    """binomialOptions: `#pragma unroll` wraps the loop that holds the barriers in a statement of its own; its
    exchange's read between the two barriers is quiet, the writes before them apart. The same read before the
    first barrier meets its neighbour's write there."""
    code = """
__global__ void k(float *out) {
  __shared__ float x[129];
  float v = threadIdx.x;
  if (threadIdx.x == 0) x[128] = 1;
  %s
  for (int i = 64; i > 0; --i) {
    x[threadIdx.x] = v;
    %s
    v += x[threadIdx.x + 1];
    __syncthreads();
  }
  out[threadIdx.x] = v;
}"""
    got = apart(tmp_path, code % (pragma, "__syncthreads();"))
    assert got["read x[threadIdx.x + 1]"] == "quiet"
    assert got["write x[threadIdx.x]"] == "(blockDim.x <= 128 && blockDim.y == 1 && blockDim.z == 1)"
    racy = apart(tmp_path, code % (pragma, ""))
    assert "read x[threadIdx.x + 1]" not in racy and "write x[threadIdx.x]" not in racy
