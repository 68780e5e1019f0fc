"""hirace/proofs/intervals.py: which reads of a __shared__ array share no barrier interval with a write
to it (hirace checks only their bounds), and why dropping their checks cannot change a verdict."""
from __future__ import annotations

import pytest

from hirace.modelcheck import _Enumerator
from hirace.oracle import BAR, Grid
from hirace.shadow_model import ShadowSim
from hirace.proofs.intervals import quiet_shared_reads
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query

HEAD = "#include <cuda_runtime.h>\n"


def quiet(tmp_path, body: str) -> list[str]:
    """The quiet reads of a program, as their text."""
    src = tmp_path / "k.cu"
    src.write_text(HEAD + body)
    prog = query(parse_file(src))
    found = quiet_shared_reads(prog)
    reads = [a for a in prog.accesses if a.kind == "read" and a.space == "shared"]
    assert reads, "the program must read shared memory"
    return sorted(a.text for a in reads if (a.span.file, a.span.start, a.span.end) in found)


TILE = """
__global__ void mm(const float *A, const float *B, float *C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  float acc = 0;
  for (int t = 0; t < n / 16; ++t) {
    As[threadIdx.y][threadIdx.x] = A[t];
    Bs[threadIdx.y][threadIdx.x] = B[t];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    %s
    __syncthreads();
  }
  C[threadIdx.x] = acc;
}
"""


def test_a_tile_read_between_the_barriers_that_end_its_loading_and_its_use_is_quiet(tmp_path):
    assert quiet(tmp_path, TILE % "") == ["As[threadIdx.y][k]", "Bs[k][threadIdx.x]"]


@pytest.mark.parametrize("write, loud", [
    ("Bs[0][threadIdx.x] = acc;", ["Bs"]),                        # a store to one array
    ("As[0][0] += 1.f;", ["As"]),                                 # a read-modify-write
    ("atomicAdd(&Bs[0][0], 1.f);", ["Bs"]),                       # an atomic
    ("float *p = &As[0][0]; p[threadIdx.x] = 0;", ["As", "Bs"]),  # through a pointer: any array
    ("atomicAdd(&C[0], acc);", []),                               # global memory, a kernel parameter
    ("C[threadIdx.x] = acc;", []),
])
def test_a_write_in_the_interval_makes_the_reads_of_its_array_loud(tmp_path, write, loud):
    got = quiet(tmp_path, TILE % write)
    assert [t for t in ["As[threadIdx.y][k]", "Bs[k][threadIdx.x]"] if t not in got] == \
        [t for t in ["As[threadIdx.y][k]", "Bs[k][threadIdx.x]"] if t[:2] in loud]


def test_a_write_before_the_first_barrier_shares_the_interval_of_a_read_there(tmp_path):
    assert quiet(tmp_path, """
__global__ void k(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = 1;
  out[threadIdx.x] = s[63 - threadIdx.x];
  __syncthreads();
  out[threadIdx.x] += s[threadIdx.x ^ 1];
}""") == ["s[threadIdx.x ^ 1]"]


def test_continue_and_break_that_skip_a_barrier_join_the_intervals_they_reach(tmp_path):
    # continue goes back to the write at the loop's top, break to the write after the loop,
    # neither through the second barrier
    assert quiet(tmp_path, """
__global__ void c(int *out) {
  __shared__ int s[64];
  int y = 0;
  for (int i = 0; i < 8; ++i) {
    s[threadIdx.x] = y;
    __syncthreads();
    y += s[threadIdx.x ^ 1];
    if (y > 3) continue;
    __syncthreads();
  }
  out[0] = y;
}
__global__ void b(int *out) {
  __shared__ int t[64];
  int y = 0;
  while (true) {
    __syncthreads();
    y += t[threadIdx.x ^ 1];
    if (y > 3) break;
    __syncthreads();
    t[threadIdx.x] = y;
  }
  t[threadIdx.x] = 0;
}
__global__ void d(int *out) {
  __shared__ int u[64];
  int y = 0;
  do {
    u[threadIdx.x] = y;
    __syncthreads();
    y += u[threadIdx.x ^ 1];
    __syncthreads();
  } while (y < 9);
  out[0] = y;
}""") == ["u[threadIdx.x ^ 1]"]


@pytest.mark.parametrize("code", [
    "if (threadIdx.x < 32) __syncthreads();",              # a conditional barrier
    "threadIdx.x ? __syncthreads() : (void)0;",
    "sync_here();",                                        # a device function that synchronises
    "asm volatile(\"bar.sync 0;\");",                      # inline assembly
])
def test_kernels_whose_barriers_are_not_plain_are_not_analysed(tmp_path, code):
    assert quiet(tmp_path, """
__device__ void sync_here() { __syncthreads(); }
__global__ void k(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = 1;
  __syncthreads();
  %s
  out[threadIdx.x] = s[63 - threadIdx.x];
}""" % code) == []


def test_calls_count_as_writes_unless_they_cannot_write_shared_memory(tmp_path):
    assert quiet(tmp_path, """
__device__ float half(float x) { return x / 2; }
__device__ void put(float *p, float v) { *p = v; }
__global__ void pure(float *out) {
  __shared__ float a[64];
  a[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] = half(a[63 - threadIdx.x]) + sqrtf(a[0]) + __shfl_sync(~0u, a[1], 0);
}
__global__ void writes(float *out) {
  __shared__ float b[64];
  b[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] = b[63 - threadIdx.x];
  put(out, 2.f);
}""") == ["a[0]", "a[1]", "a[63 - threadIdx.x]"]


def test_extern_shared_arrays_alias_each_other_and_reads_in_device_functions_are_never_quiet(tmp_path):
    assert quiet(tmp_path, """
__device__ float get(const float *s, int i) { return s[i]; }
__global__ void k(float *out) {
  extern __shared__ float f[];
  extern __shared__ int n[];
  __shared__ float plain[64];
  plain[threadIdx.x] = 1;
  __syncthreads();
  n[threadIdx.x] = 1;
  out[threadIdx.x] = f[threadIdx.x ^ 1] + plain[threadIdx.x ^ 1] + get(plain, 0);
}""") == ["plain[threadIdx.x ^ 1]"]


def test_a_kernel_parameter_the_kernel_reassigns_may_point_to_shared_memory(tmp_path):
    assert quiet(tmp_path, """
__global__ void k(float *out) {
  __shared__ float s[64];
  s[threadIdx.x] = 1;
  __syncthreads();
  float v = s[threadIdx.x ^ 1];
  out = s;
  out[threadIdx.x] = v;
}""") == []


def _kept(trace, dropped_in) -> list[int]:
    """The indices of the events kept when `dropped_in(accesses)` names, in each barrier interval of
    the one block, the accesses (indices) to drop."""
    kept, segment = [], []

    def flush():
        drop = dropped_in([i for i in segment if trace[i][0] in ("R", "W", "BA", "GA")])
        kept.extend(i for i in segment if i not in drop)
        segment.clear()
    for i, (kind, _) in enumerate(trace):
        if kind == BAR:
            flush()
            kept.append(i)
        else:
            segment.append(i)
    flush()
    return kept


def _without_quiet_reads(trace):
    """The trace less its reads in intervals without a write to the word."""
    return _kept(trace, lambda acc: set(acc) if all(trace[i][0] == "R" for i in acc) else set())


def _without_lone_writes(trace):
    """The trace less the writes of intervals where one thread alone accesses the word, writing it."""
    return _kept(trace, lambda acc: set(acc) if len({trace[i][1] for i in acc}) == 1
                 and all(trace[i][0] == "W" for i in acc) else set())


def _without_lone_atomics(trace):
    """The trace less its atomics in intervals where every access to the word is an atomic."""
    return _kept(trace, lambda acc: set(acc) if all(trace[i][0] in ("BA", "GA") for i in acc) else set())


def _without_apart_accesses(trace):
    """The trace less, in each interval, a thread's reads of the word where no other thread writes it
    there and its writes where no other thread accesses it there (hirace/proofs/apart.py)."""
    def drop(acc):
        out = set()
        for i in acc:
            kind, t = trace[i]
            others = [trace[j][0] for j in acc if trace[j][1] != t]
            if kind == "R" and all(k == "R" for k in others) or kind == "W" and not others:
                out.add(i)
        return out
    return _kept(trace, drop)


def _launch_wide(trace, dropped_in) -> list[int]:
    """As _kept, for the parameter rules (hirace/proofs/readonly_params.py), which reason about the
    whole launch: `dropped_in(accesses)` sees every access of the trace, barriers or not."""
    acc = [i for i, (kind, _) in enumerate(trace) if kind in ("R", "W", "BA", "GA")]
    drop = dropped_in(acc)
    return [i for i in range(len(trace)) if i not in drop]


def _without_readonly_reads(trace):
    """The trace less its reads where nothing in the launch writes the word (a read-only parameter)."""
    return _launch_wide(trace, lambda acc: set(acc) if all(trace[i][0] == "R" for i in acc) else set())


def _without_own_accesses(trace):
    """The trace less the accesses of a word that one thread alone accesses in the launch (an own
    parameter: each thread's own element)."""
    return _launch_wide(trace, lambda acc: set(acc) if len({trace[i][1] for i in acc}) == 1 else set())


def _without_atomic_params(trace):
    """The trace less its device-scope atomics where every access to the word in the launch is one
    (an atomic parameter)."""
    return _launch_wide(trace, lambda acc: set(acc) if all(trace[i][0] == "GA" for i in acc) else set())


def _first_race(events, grid):
    sim = ShadowSim(grid)
    for n, ev in enumerate(events):
        if sim.event(ev):
            return n
    return None


@pytest.fixture(scope="module")
def one_block_traces():
    """Every maximal trace of up to 5 events of one block of 2 warps x 2 lanes, with its first race."""
    grid = Grid(1, 2, 2)
    en = _Enumerator(grid, 5, keep_traces=True)
    en.run()
    return grid, en.maximal_traces


@pytest.mark.parametrize("drop", [_without_quiet_reads, _without_lone_writes, _without_lone_atomics,
                                  _without_apart_accesses, _without_readonly_reads, _without_own_accesses,
                                  _without_atomic_params],
                         ids=["reads of write-free intervals", "a thread's lone writes", "atomic-only intervals",
                              "accesses no other thread meets", "read-only parameters", "own parameters",
                              "atomic parameters"])
def test_dropping_accesses_that_race_with_nothing_changes_no_verdict_of_the_state_machine(one_block_traces, drop):
    """Through the Python model of the shadow update (hirace verify-fsm checks it against the header):
    the first race is the same event with and without the reads of intervals in which no thread writes
    the word, without the writes of a thread that alone accesses the word in its interval, without
    the atomics of intervals where every access to the word is an atomic, and without the accesses
    that no other thread's access meets in their interval (a read where no other thread writes the
    word, a write where no other thread accesses it: hirace/proofs/apart.py); and, over the whole
    launch, as the parameter rules argue (hirace/proofs/readonly_params.py): without the reads of a
    word nothing writes, without the accesses of a word one thread alone accesses, and without the
    device-scope atomics of a word only such atomics access."""
    grid, traces = one_block_traces
    dropped = differ = 0
    for trace, race_at in traces:
        kept = drop(trace)
        if len(kept) == len(trace):
            continue
        dropped += 1
        got = _first_race([trace[i] for i in kept], grid)
        if (kept[got] if got is not None else -1) != race_at:
            differ += 1
    assert dropped > 500 and differ == 0


@pytest.mark.parametrize("flag", ["--quiet-reads", "--no-quiet-reads"])
def test_quiet_reads_still_report_their_memory_errors_and_races_nearby_stay_found(run_cli, tmp_path, flag):
    """engine/quiet_reads.cu on the cpu backend: the quiet read that runs past its tile is reported
    (and diverted) as with the whole check, and the race after the next barrier is found."""
    from conftest import CUDA
    src = CUDA / "engine" / "quiet_reads.cu"
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", flag, "--format", "json", "--output", out, src)
    assert r.returncode == 1 and r.stdout == "done\n", r.stderr
    doc = __import__("json").loads(out.read_text())
    assert [(m["site"]["line"], m["kind"], m["offset"]) for m in doc["memory_errors"]] == [(13, "out-of-bounds", 256)]
    assert sorted((x["site"]["line"], x["kind"]) for x in doc["races"]) == [(15, "read-write"), (16, "read-write")]
    if flag == "--quiet-reads":
        ins = run_cli("hirace.cli", "instrument", "-o", tmp_path / "i", src)
        # the tile's and spare's reads and writes, and out[threadIdx.x] (each thread's own element)
        assert ins.returncode == 0 and "(6 of them only bounds-checked where they cannot race;" in ins.stdout, ins.stderr
        text = (tmp_path / "i" / "quiet_reads.cu").read_text()
        assert text.count("::hirace::rd_bounds(") == 3 and text.count("::hirace::rd(") == 1   # tile twice, spare
        assert text.count("::hirace::wr_private(") == 2   # the first interval's writes: each thread's own word


def lone(tmp_path, body: str) -> dict[str, str]:
    """The lone writes of a program (each thread's own shared word), as text -> form."""
    from hirace.proofs.intervals import shared_intervals
    from hirace.proofs.proof import Rule
    src = tmp_path / "w.cu"
    src.write_text(HEAD + body)
    prog = query(parse_file(src))
    alone = shared_intervals(prog).alone
    alone = {k: v for k, v in alone.items() if v.rule is not Rule.APART}   # (index proofs: test_apart.py)
    form = lambda f: f.form if f.rule is Rule.OWN_SHARED_WORD else f"{f.lane}~"   # noqa: E731  (lane + offset: 'x~')
    return {a.text: form(alone[(a.span.file, a.span.start, a.span.end)]) for a in prog.accesses
            if (a.span.file, a.span.start, a.span.end) in alone}


def test_tile_loads_are_each_threads_own_word(tmp_path):
    assert lone(tmp_path, TILE % "") == {"As[threadIdx.y][threadIdx.x]": "yx", "Bs[threadIdx.y][threadIdx.x]": "yx"}


@pytest.mark.parametrize("code, expected", [
    ("", {"s[tx]": "x", "t[ty][tx]": "yx"}),
    ("x += s[0];", {"t[ty][tx]": "yx"}),                        # a read of s in the interval
    ("s[tx + 1] = 0;", {"s[tx]": "x~", "s[tx + 1]": "x~", "t[ty][tx]": "yx"}),   # lane + offset: the launch decides
    ("t[tx][ty] = 0;", {"s[tx]": "x"}),                         # two forms: (1,0) and (0,1) meet
    ("peek(t[0]);", {}),                                        # a call that may read shared memory
    ("tx += 1;", {}),                                           # the copy changes
    ("int *p = &ty; x += p != 0;", {"s[tx]": "x"}),             # its address is taken
])
def test_a_write_is_lone_only_when_nothing_else_touches_its_array_in_the_interval(tmp_path, code, expected):
    assert lone(tmp_path, """
__device__ void peek(const int *p) { (void)p[0]; }
__global__ void k(int *out) {
  __shared__ int s[64];
  __shared__ int t[8][8];
  int tx = threadIdx.x, ty = threadIdx.y, x = 0;
  s[tx] = 1;
  t[ty][tx] = 2;
  %s
  __syncthreads();
  out[tx] = s[63 - tx] + t[ty][7 - tx] + x;
}""" % code) == expected


@pytest.mark.parametrize("flag", ["--quiet-reads", "--no-quiet-reads"])
def test_lone_writes_are_checked_when_the_block_does_not_fit_the_array(run_cli, tmp_path, flag):
    """engine/lone_writes.cu: no race while the 8 x 4 block fits t[4][8]; the 16 x 2 block makes two
    threads write t[1][0], and the race is reported."""
    from conftest import CUDA
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", flag, "--format", "json", "--output", out,
                CUDA / "engine" / "lone_writes.cu")
    assert r.returncode == 1 and r.stdout == "done\n", r.stderr
    doc = __import__("json").loads(out.read_text())
    assert [(x["launch"], x["site"]["line"], x["kind"]) for x in doc["races"]] == [(1, 10, "write-write")]


TREE = """
__device__ int peek(int v) { return v; }
__global__ void k(const int *in, int *out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  for (int d = blockDim.x / 2; d > 0; d >>= 1) {
    if (t < d) s[t] += s[t + d];
    %s
    __syncthreads();
  }
  if (t == 0) out[0] = s[0];
}"""


def tree(tmp_path, code: str, loop: str = "") -> tuple[list[str], dict[tuple[str, str], str]]:
    """(quiet reads, own words by (text, kind)) of the tree reduction with `code` in its loop's body
    (and `loop` for its loop's head)."""
    from hirace.proofs.intervals import shared_intervals
    src = tmp_path / "t.cu"
    text = TREE % code
    if loop:
        text = text.replace("for (int d = blockDim.x / 2; d > 0; d >>= 1) {", loop)
    src.write_text(HEAD + text)
    prog = query(parse_file(src))
    found = shared_intervals(prog)
    quiet_reads, own = found.quiet, found.alone
    key = lambda a: (a.span.file, a.span.start, a.span.end)  # noqa: E731
    return (sorted(a.text for a in prog.accesses if key(a) in quiet_reads),
            {(a.text, a.kind): getattr(own[key(a)], "form", type(own[key(a)]).__name__)   # (apart.py's: Apart)
             for a in prog.accesses if key(a) in own})


def test_a_tree_reductions_threads_never_meet_in_a_pass(tmp_path):
    """Below d each thread adds the word d above its own into its own: the read above is quiet, the
    read-modify-write and thread 0's final read are each thread's own word."""
    assert tree(tmp_path, "") == (["s[t + d]"], {("s[t]", "write"): "x", ("s[t]", "rmw"): "x",
                                                 ("s[0]", "read"): "x"})


@pytest.mark.parametrize("code, above_quiet", [
    ("d = d;", False),                          # d changes in the body: not the same in a pass
    ("if (t == 1) s[t + 1] = 0;", False),       # a write to another thread's word
    ("s[t] = 0;", False),                       # an own write above d
    ("if (t < d) break;", False),               # a thread may leave the loop early
    ("__syncthreads();", True),                 # the barrier is not the body's only one: no tree, but the
                                                # integer proof (apart.py) keeps t + d off every writer's t < d
    ("int q = s[t + 1]; (void)q;", True),       # a read of another thread's word below d
    ("int q = peek(s[t]); (void)q;", True),     # an own read: still a tree
])
def test_a_tree_is_taken_only_where_each_pass_keeps_the_threads_apart(tmp_path, code, above_quiet):
    quiet_reads, own = tree(tmp_path, code)
    assert ("s[t + d]" in quiet_reads) == above_quiet
    assert (own.get(("s[t]", "rmw")) == "x") == code.startswith("int q = peek")


@pytest.mark.parametrize("loop", [
    "for (int d = t + 1; d > 0; d >>= 1) {",                  # a start that differs between threads
    "for (int d = blockDim.x / 2; d > t; d >>= 1) {",         # a condition that differs
    "for (int d = blockDim.x / 2; d > 0; d -= peek(1)) {",    # a step through a call
    "for (int d = blockDim.x / 2; d > 0; d = d / 2) {",       # a step the analysis does not read
])
def test_a_loop_variable_that_threads_may_hold_differently_is_no_tree(tmp_path, loop):
    quiet_reads, own = tree(tmp_path, "", loop)
    assert "s[t + d]" not in quiet_reads and ("s[t]", "rmw") not in own


@pytest.mark.parametrize("flag", ["--quiet-reads", "--no-quiet-reads"])
def test_tree_reductions_report_the_races_of_blocks_that_share_words(run_cli, tmp_path, flag):
    """engine/tree_reduce.cu on the cpu backend: no race in the 256-thread reduction, whose shared
    accesses are only bounds-checked; the 128 x 2 block's race and the off-by-one guard's race are
    found with and without the quiet forms."""
    from conftest import CUDA
    src = CUDA / "engine" / "tree_reduce.cu"
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", flag, "--format", "json", "--output", out, src)
    assert r.returncode == 1 and r.stdout == "sum 256\ndone\n", r.stderr
    doc = __import__("json").loads(out.read_text())
    assert sorted({(x["launch"], x["site"]["line"], x["kind"]) for x in doc["races"]}) == \
        [(1, 14, "read-write"), (2, 27, "read-write")]
    if flag == "--quiet-reads":
        ins = run_cli("hirace.cli", "instrument", "-o", tmp_path / "i", src)
        assert ins.returncode == 0, ins.stderr
        text = (tmp_path / "i" / "tree_reduce.cu").read_text()
        summed = text[:text.index("__global__ void off_by_one")]
        assert summed.count("::hirace::rmw_private(") == 1 and summed.count("::hirace::rd_bounds(") == 1
        assert summed.count("::hirace::rd_private(") == 1 and "::hirace::rd(" not in summed


HALO = """
#define R 4
__global__ void k(const float *in, float *out) {
  __shared__ float s[256 + 2 * R];
  int l = threadIdx.x + R;
  s[l] = in[threadIdx.x];
  if (threadIdx.x < R) {
    s[l - R] = 0.f;
    s[l + 256] = 0.f;
  }
  %s
  __syncthreads();
  out[threadIdx.x] = s[l - 1] + s[l + 1];
}"""


def halo(tmp_path, code: str) -> dict[str, str]:
    """The halo load's writes that are each thread's own words, with their launch condition."""
    from hirace.proofs.intervals import shared_intervals
    from hirace.proofs.proof import Rule
    src = tmp_path / "h.cu"
    src.write_text(HEAD + HALO % code)
    prog = query(parse_file(src))
    own = {k: v for k, v in shared_intervals(prog).alone.items() if v.rule is not Rule.APART}   # (test_apart.py)
    return {a.text: own[(a.span.file, a.span.start, a.span.end)].condition(a.base).device()
            for a in prog.accesses if (a.span.file, a.span.start, a.span.end) in own}


def test_a_tile_and_its_halo_are_each_threads_own_words_where_their_ranges_lie_apart(tmp_path):
    got = halo(tmp_path, "")
    assert sorted(got) == ["s[l + 256]", "s[l - R]", "s[l]"]
    cond = got["s[l]"]
    assert cond == got["s[l - R]"] == got["s[l + 256]"]
    assert "blockDim.y == 1 && blockDim.z == 1 && ::hirace::lanes_apart((long long)blockDim.x" in cond
    args = cond.replace(" ", "").replace("(longlong)", "").replace("(", "").replace(")", "")
    # (offset, cap) of s[l]: from R, every thread; s[l - R]: from 0, R threads; s[l + 256]: from R + 256, R threads
    assert args.endswith("lanes_apartblockDim.x,sizeofs/sizeofs[0],R,blockDim.x,R-R,R,R+256,R")


@pytest.mark.parametrize("code", [
    "float q = s[0]; (void)q;",                 # a read of the array in the interval
    "s[threadIdx.x * 2] = 0;",                  # a write that is not lane + offset
    "atomicAdd(&s[0], 1.f);",                   # an atomic
    "s[l + threadIdx.y] = 0;",                  # an offset that differs between threads
])
def test_halo_writes_are_checked_whole_when_the_interval_holds_another_access(tmp_path, code):
    assert "s[l]" not in halo(tmp_path, code)


@pytest.mark.parametrize("block, raced", [(256, False), (260, True)])
def test_lanes_apart_decides_at_the_launch(run_cli, tmp_path, block, raced):
    """On the cpu backend: 256 threads keep the tile and halo apart; 260 make thread 256 write
    s[260], which thread 0 writes as the right halo: a race hirace must report."""
    src = tmp_path / "h.cu"
    src.write_text("#include <cstdio>\n" + HALO % "" + """
int main() {
  float *in, *out;
  cudaMalloc(&in, 512 * sizeof(float));
  cudaMalloc(&out, 512 * sizeof(float));
  k<<<1, %d>>>(in, out);
  cudaDeviceSynchronize();
  printf("done\\n");
  return 0;
}""" % block)
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--format", "json", "--output", out, src)
    doc = __import__("json").loads(out.read_text())
    races = {(x["site"]["line"], x["kind"]) for x in doc["races"]}
    assert r.stdout.endswith("done\n"), r.stderr
    if raced:
        assert r.returncode == 1 and ("write-write" in {k for _, k in races}), races
    else:
        assert r.returncode == 0 and not races and not doc["memory_errors"], (races, doc["memory_errors"])


@pytest.mark.parametrize("code, quiet_atomic", [
    ("", True),                                   # every access to the array in the interval is an atomic
    ("atomicMax(&bins[threadIdx.x], 3u);", True),  # another atomic
    ("unsigned q = bins[0]; (void)q;", False),     # a plain read
    ("bins[threadIdx.x] = 0;", False),             # a plain write, even of the thread's own word
    ("unsigned *p = bins; p[0] = 1;", False),      # through a pointer: any array
])
def test_an_atomic_is_quiet_where_every_access_to_its_array_is_an_atomic(tmp_path, code, quiet_atomic):
    from hirace.proofs.intervals import shared_intervals
    src = tmp_path / "a.cu"
    src.write_text(HEAD + """
__global__ void k(const unsigned *in, unsigned *out) {
  __shared__ unsigned bins[64];
  bins[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&bins[in[threadIdx.x] & 63], 1u);
  %s
  __syncthreads();
  out[threadIdx.x] = bins[threadIdx.x];
}""" % code)
    prog = query(parse_file(src))
    quiet_set = shared_intervals(prog).quiet
    first = next(at for at in prog.atomics if at.op == "atomicAdd")
    assert ((first.span.file, first.span.start, first.span.end) in quiet_set) == quiet_atomic


@pytest.mark.parametrize("flag", ["--quiet-reads", "--no-quiet-reads"])
def test_quiet_shared_atomics_still_report_their_memory_errors_and_the_plain_reads_races(run_cli, tmp_path, flag):
    """engine/shared_atomics.cu: the atomic past the end of the bins is reported, and the plain read
    among another kernel's atomics races with one of them, with and without the quiet forms."""
    from conftest import CUDA
    src = CUDA / "engine" / "shared_atomics.cu"
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", flag, "--format", "json", "--output", out, src)
    assert r.returncode == 1 and r.stdout == "bin 7: 2\n", r.stderr
    doc = __import__("json").loads(out.read_text())
    assert [(m["launch"], m["site"]["line"], m["offset"]) for m in doc["memory_errors"]] == [(1, 12, 256)]
    assert sorted({(x["launch"], x["site"]["line"], x["kind"]) for x in doc["races"]}) == [(2, 22, "atomic-plain")]
    if flag == "--quiet-reads":
        ins = run_cli("hirace.cli", "instrument", "-o", tmp_path / "i", src)
        assert ins.returncode == 0, ins.stderr
        text = (tmp_path / "i" / "shared_atomics.cu").read_text()
        cut = text.index("__global__ void peek")
        assert text[:cut].count("::hirace::atomic_device_bounds(") == 2
        assert "::hirace::atomic_device_bounds(" not in text[cut:] and text[cut:].count("::hirace::atomic_device(") == 1
