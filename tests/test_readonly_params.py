"""hirace/proofs/readonly_params.py: the pointer parameters a kernel only reads through, and the
launches where hirace may check only the bounds of those reads."""
from __future__ import annotations

import json
import re

import pytest

from conftest import CUDA
from runtime import include_dir

RUNTIME_INCLUDE = include_dir()
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query
from hirace.proofs.readonly_params import readonly_params

HEAD = "#include <cuda_runtime.h>\n__device__ int flag;\n"


def params(tmp_path, body: str) -> dict[str, tuple[list[str], list[str]]]:
    src = tmp_path / "k.cu"
    src.write_text(HEAD + body)
    found = readonly_params(query(parse_file(src)))
    return {kp.kernel.name: ([kp.kernel.params[i] for i in kp.candidates], [kp.kernel.params[i] for i in kp.written])
            for kp in found.values()}


def test_parameters_read_through_and_never_written_are_candidates(tmp_path):
    assert params(tmp_path, """
__device__ float twice(float v) { return 2 * v; }
__global__ void spmv(const int *row, const int *col, const float *val, const float *x, float *y, int *hits,
                     float *total) {
  int r = threadIdx.x;
  float acc = 0;
  for (int e = row[r]; e < row[r + 1]; ++e) acc += twice(val[e]) * x[col[e]];
  y[r] = acc;
  atomicAdd(&hits[0], 1);
  atomicAdd(total, acc);
}""") == {"spmv": (["row", "col", "val", "x"], ["y", "hits", "total"])}


@pytest.mark.parametrize("code", [
    "int *p = out; if (in[0]) p = (int *)in; p[0] = 1;",   # through a pointer the kernel made
    "flag = 1;",                        # a __device__ variable: a parameter may point to it
    "put(out);",                        # a device function that writes
    "asm volatile(\"membar.gl;\");",
])
def test_a_kernel_that_writes_anywhere_but_through_its_parameters_has_none(tmp_path, code):
    assert params(tmp_path, """
__device__ void put(int *p) { p[1] = 2; }
__global__ void k(const int *in, int *out) {
  out[threadIdx.x] = in[threadIdx.x];
  %s
}""" % code) == {}


def test_a_store_through_a_pointer_loaded_from_a_parameter_is_not_a_store_through_it(tmp_path):
    """nodes[i].next may point into in's buffer: its store is a store anywhere, and no read is quiet;
    a store into the element itself (nodes[i].v) is a store through nodes."""
    body = """
struct Node { int *next; int v; };
__global__ void k(Node *nodes, const int *in) {
  %s = in[threadIdx.x];
}"""
    assert params(tmp_path, body % "nodes[threadIdx.x].next[0]") == {}
    assert params(tmp_path, body % "nodes[threadIdx.x].v") == {"k": (["in"], ["nodes"])}


def test_members_of_a_parameters_elements_are_reads_through_it_and_loaded_pointers_are_not(tmp_path):
    """bfs's `g_graph_nodes[tid].starting`: a member of an element lies in the buffer the parameter
    points into (its quiet read tests that); `nodes[i].next[0]` reads the member `next` there, then
    through the pointer it loaded, which is no read through nodes."""
    from hirace.proofs.facts import FactTable
    body = """
struct Node { int *next; int start, count; };
__global__ void k(const Node *nodes, int *out) {
  out[threadIdx.x] = %s;
}"""
    for read in ("nodes[threadIdx.x].start + nodes[threadIdx.x].count", "nodes->start", "(*nodes).count",
                 "nodes[threadIdx.x].next[0]"):
        assert params(tmp_path, body % read) == {"k": (["nodes"], ["out"])}, read
    prog = query(parse_file(tmp_path / "k.cu"))
    sites = FactTable(prog).param_sites
    assert {a.text: (a.span.file, a.span.start, a.span.end) in sites for a in prog.accesses if a.kind == "read"} == \
        {"nodes[threadIdx.x].next": True, "nodes[threadIdx.x].next[0]": False}


def test_member_reads_of_a_read_only_parameter_report_their_race_and_their_bounds(run_cli, tmp_path):
    """engine/member_reads.cu: the reads are quiet in launch 0, where the one past the array's end is
    reported at both members; launch 1 passes one buffer as both parameters and races."""
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--format", "json", "--output", out,
                CUDA / "engine" / "member_reads.cu")
    assert r.returncode == 1 and r.stdout == "sum 84\n", r.stderr
    doc = json.loads(out.read_text())
    assert {(x["launch"], x["site"]["line"], x["kind"]) for x in doc["races"]} == {(1, 11, "read-write")}
    assert [(m["launch"], m["site"]["column"], m["offset"]) for m in doc["memory_errors"]] == [(0, 24, 64), (0, 41, 68)]


def test_a_parameter_the_kernel_changes_or_writes_is_no_candidate(tmp_path):
    assert params(tmp_path, """
__global__ void k(const int *a, const int *b, int *c, int *d, const int *e) {
  a += 1;      // moved by a number: still into its buffer (KernelFacts.rebased)
  e = b + 1;   // another pointer's value
  c[threadIdx.x] = a[0] + b[0] + d[0] + e[0];
  d[1] = 0;
}""") == {"k": (["a", "b"], ["c", "d"])}
    assert params(tmp_path, """
__global__ void k(const int *a, const int *b, int *c) {
  a += b - a;  // a number made of pointers: it may point anywhere
  c[threadIdx.x] = a[0] + b[0];
}""") == {"k": (["b"], ["c"])}
    # `p = p + n` (or `n + p`, `p - n`) moves p as `p += n` does; `p = q + n`, `p = p + (q - p)` do not
    assert params(tmp_path, """
__global__ void k(const int *a, const int *b, const int *d, const int *e, const int *f, int *c) {
  a = a + 2 * blockIdx.y;
  b = blockIdx.y + b;
  d = d - 1;
  e = f + 1;
  f = f + (a - f);
  c[threadIdx.x] = a[0] + b[0] + d[0] + e[0] + f[0];
}""") == {"k": (["a", "b", "d"], ["c"])}


def test_launches_pass_their_arguments_only_when_they_can_be_evaluated_again(run_cli, tmp_path):
    src = tmp_path / "p.cu"
    src.write_text("""
__global__ void k(const int *in, int *out) { out[threadIdx.x] = in[threadIdx.x]; }
int *pick(int *p) { return p; }
#define PICKED pick(a)
#define AT(p, n) ((p) + (n))
#define BUMPED(p) ((p) += 1)
int main() {
  int *a, *b;
  cudaMalloc(&a, 256); cudaMalloc(&b, 256);
  k<<<1, 32>>>(a + 8, b);
  k<<<1, 32>>>(pick(a), b);
  k<<<1, 32>>>(PICKED, b);
  k<<<1, 32>>>(AT(a, 4), b);
  k<<<1, 32>>>(BUMPED(a), b);
  return 0;
}""")
    r = run_cli("hirace.cli", "instrument", "-o", tmp_path / "i", src)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "i" / "p.cu").read_text()
    # (in is read where out's thread writes: a pair, quiet where a launch passes both one pointer and out[threadIdx.x]
    # is own, its own variable)
    assert "::hirace::rd_paired(&(in[threadIdx.x]), 1u, in, 0u, __hirace_own0)" in text
    # (one in k's entry for launches through a pointer, hirace/pointer_launches.py; one at a launch)
    # (and one at AT's launch: a macro without side effects, instrument/frontend/parse.py _pure_macro)
    assert text[text.index("int main()"):].count("::hirace::host::quiet_params(") == 2
    assert "quiet_params({::hirace::host::arg_address(AT(a, 4)), " in text
    # in: read-only (bit 0); out: out[threadIdx.x] is each thread's own element (bit 1, own mask 2)
    assert "quiet_params({::hirace::host::arg_address(a + 8), ::hirace::host::arg_address(b)}, " \
           "{::hirace::host::arg_address(b)}, {::hirace::host::arg_address(a + 8), " \
           "::hirace::host::arg_address(b)}, 2u, {256u})" in text


@pytest.mark.parametrize("flag", ["--quiet-reads", "--no-quiet-reads"])
def test_a_read_only_parameter_is_checked_when_a_written_one_shares_its_buffer(run_cli, tmp_path, flag):
    """engine/readonly_params.cu: no race while `in` and `out` point to different buffers; the race
    of the launch passing one buffer as both is found; the read past the end is reported."""
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", flag, "--format", "json", "--output", out,
                CUDA / "engine" / "readonly_params.cu")
    assert r.returncode == 1 and r.stdout == "done\n", r.stderr
    doc = json.loads(out.read_text())
    assert [(x["launch"], x["site"]["line"], x["kind"]) for x in doc["races"]] == [(1, 9, "read-write")]
    assert [(m["launch"], m["site"]["line"], m["offset"]) for m in doc["memory_errors"]] == [(0, 9, 256), (2, 9, 256)]


# ---------------------------------------------------------------- own parameters (hirace/proofs/own_index.py)

def owned(tmp_path, body: str) -> dict[str, list[tuple[str, str]]]:
    src = tmp_path / "k.cu"
    src.write_text(HEAD + "#define BS 16\n" + body)
    found = readonly_params(query(parse_file(src)))
    return {kp.kernel.name: [(kp.kernel.params[o.position], "::hirace::own_index(" + ", ".join(o.form.values()) + ")")
                             for o in kp.own]
            for kp in found.values() if kp.own}


def test_an_index_of_coordinates_times_uniform_coefficients_makes_an_own_parameter(tmp_path):
    got = owned(tmp_path, """
__global__ void srad(float *c, const float *j, int cols, int n) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int index = cols * BS * blockIdx.y + BS * blockIdx.x + cols * ty + tx;
  c[index] = j[index] * 2;
  c[index] += 1;
}
__global__ void line(float *out, int n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x - n / 2;
  out[i] = 0;
}""")
    assert got == {
        "srad": [("c", "::hirace::own_index((1ll), ((long long)(cols)), 0ll, ((long long)(BS)), "
                       "((long long)(BS) * (long long)(cols)), 0ll, 0ll)")],
        "line": [("out", "::hirace::own_index((1ll), 0ll, 0ll, ((long long)(blockDim.x)), 0ll, 0ll, "
                         "(- (long long)(n / 2)))")]}


@pytest.mark.parametrize("code", [
    "out[i] = 1; out[i + n] = 2; out[i + 2 * k] = 3;",   # two indices that are no steps of one value
    "out[i] = 1; for (int j = 0; j < 2; ++j) out[i + j * n] = 2;",   # steps beside a loop's (one coordinate)
    "for (int j = 0; j < 2; ++j) { out[i + j] = 0; j += 0; }",   # a loop variable the body changes
    "for (int j = 0; j < n; ++j) out[i + j] = 0; for (int m = 0; m < 2; ++m) out[i + m] = 0;",   # two loops
    "for (int j = 0; j < i; ++j) out[i + j] = 0;",  # a loop's bound that differs between threads
    "for (int j = 0; j > -n; j--) out[i + j] = 0;",   # a loop that counts down
    "int x = i; if (n) x = 0; out[x] = 0;",          # a local assigned again inside a branch
    "int x = i; out[x] = 0; x = threadIdx.x; out[x] += 1;",   # two values: two indices
    "int x = i; x = threadIdx.x; int *p = &x; out[x] = 0;",   # its address taken
    "out[i * i] = 0;",                              # not a sum of coordinates
    "out[threadIdx.x + (short)n] = 0;",             # a narrower type may wrap
    "out[(size_t)(blockIdx.x * blockDim.x) + threadIdx.x] = 0;",   # a part wrapped at 32 bits, then widened
    "out[i] = 0; put(out);",                        # named elsewhere (put only reads)
    "out[i] = 0; atomicAdd(&out[0], 1.f);",         # an atomic through it
    "out[i] = in[0];  int *q = (int *)in; out[i] += q[1];",   # a read through a pointer the kernel made
    "out[k] = 0;",                                  # a local that changes
    "out[i] = 0; n = 3; out[i + n] = 0;",           # a parameter that changes
])
def test_no_own_parameter_where_threads_may_meet_or_the_kernel_reaches_it_otherwise(tmp_path, code):
    assert owned(tmp_path, OWN_KERNEL % "out[i] = in[i]; out[i] += 1;") == {"k": [(
        "out", "::hirace::own_index((1ll), 0ll, 0ll, ((long long)(blockDim.x)), 0ll, 0ll, 0ll)")]}
    assert owned(tmp_path, OWN_KERNEL % code) == {}


def test_writes_at_offsets_of_whole_steps_are_one_index_over_the_steps(tmp_path):
    """sortingNetworks' stores of a lane's element and the one half a tile on (`out[0]`, `out[TILE / 2]` after
    `out += blockIdx.x * TILE + threadIdx.x`): one index, the lowest offset, with the step as a coordinate
    over the multiples between lowest and highest; the launch's own_index test then decides (two
    neighbours `out[i]`, `out[i + 1]` are own only in blocks of one thread)."""
    tile = owned(tmp_path, """
__global__ void k(float *out, const float *in) {
  out += blockIdx.x * BS + threadIdx.x;
  out[0] = in[0];
  out[BS / 2] = in[1];
}""")
    assert tile == {"k": [("out", "::hirace::own_index((1ll), 0ll, 0ll, ((long long)(BS)), 0ll, 0ll, ((long long)(0)), "
                                  "((long long)(BS/2)), ((long long)(2)))")]}
    spread = owned(tmp_path, OWN_KERNEL % "out[i + 3 * n] = 1; out[i - 3 * n] = 2; out[i + 9 * n] += in[i];")
    assert spread == {"k": [("out", "::hirace::own_index((1ll), 0ll, 0ll, ((long long)(blockDim.x)), 0ll, 0ll, "
                                    "(- (long long)(n) * (long long)(3)), ((long long)(6) * (long long)(n)), ((long long)(3)))")]}
    near = owned(tmp_path, OWN_KERNEL % "out[i] = 1; out[i + 1] = 2;")
    assert near == {"k": [("out", "::hirace::own_index((1ll), 0ll, 0ll, ((long long)(blockDim.x)), 0ll, 0ll, 0ll, "
                                  "(1ll), ((long long)(2)))")]}


def test_own_indices_follow_counted_loops_and_locals_assigned_again(tmp_path):
    """transpose's forms: a loop `for (int i = L; i < U; i += S)` is L + S * k over its count, a
    seventh coordinate; a local the body's statements assign again has the value of the last
    assignment before the use."""
    got = owned(tmp_path, OWN_KERNEL % """int x = blockIdx.x * BS + threadIdx.x;
  int from = x;
  x = blockIdx.y * BS + threadIdx.y;
  for (int j = 1; j <= BS; j += 4) out[x + j * n] = in[from];""")
    assert got == {"k": [("out", "::hirace::own_index(0ll, (1ll), 0ll, 0ll, ((long long)(BS)), 0ll, "
                                 "((long long)(1) * (long long)(n)), ((long long)(4) * (long long)(n)), "
                                 "((long long)((long long)(4) > 0 && (long long)(BS) <= 2147483647ll - (long long)(4) ? "
                                 "((long long)(BS) - (long long)(1)) / "
                                 "(long long)(4) + 1 : (1ll << 40))))")]}


def test_a_grid_stride_loop_starts_at_the_threads_index_and_steps_over_its_count(tmp_path):
    """`for (int i = tid; i < n; i += threads)`: the thread's start (coefficients that are extents and
    non-negative literals) plus whole strides; its count from the start's uniform part bounds every
    thread's; a uniform local (`threads`) is written as its initializer. A start with a coefficient that
    may be negative, or a bound or stride that differs between threads, makes no form."""
    body = """const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int threads = blockDim.x * gridDim.x;
  for (int i = tid + 2; i < n; i += threads) out[i] = in[i];"""
    assert owned(tmp_path, OWN_KERNEL % body) == {"k": [(
        "out", "::hirace::own_index((1ll), 0ll, 0ll, ((long long)(blockDim.x)), 0ll, 0ll, ((long long)(2)), "
               "((long long)(((const int)(blockDim.x * gridDim.x)))), ((long long)((long long)(((const int)(blockDim.x "
               "* gridDim.x))) > 0 && (long long)(n) <= 2147483647ll - (long long)(((const int)(blockDim.x * "
               "gridDim.x))) + 1 ? ((long long)(n) - (long long)(((long long)(2))) + (long long)(((const int)"
               "(blockDim.x * gridDim.x))) - 1) / (long long)(((const int)(blockDim.x * gridDim.x))) : (1ll << 40))))")]}
    # a local's value is written as the local holds it (its type: an int's division is not an unsigned one's);
    # a local that names itself is no value (no endless search)
    per = owned(tmp_path, OWN_KERNEL % """const int threads = blockDim.x * gridDim.x;
  int per = (n - 1) / threads;
  out[threadIdx.x * per] = in[0];""")
    assert "((const int)(blockDim.x * gridDim.x))" in per["k"][0][1], per
    assert owned(tmp_path, OWN_KERNEL % "int m = m * 2; out[threadIdx.x * m] = 0;") == {}
    assert owned(tmp_path, OWN_KERNEL % "for (int j = j; j < n; j += 1) out[j] = 0;") == {}
    for start, bound, step in [("n * blockIdx.x + threadIdx.x", "n", "threads"),
                               ("blockIdx.x - threadIdx.x", "n", "threads"),
                               ("tid", "n + threadIdx.x", "threads"), ("tid", "n", "threads + threadIdx.x")]:
        assert owned(tmp_path, OWN_KERNEL % body.replace("tid + 2; i < n; i += threads",
                                                         f"{start}; i < {bound}; i += {step}")) == {}, start


def test_an_own_parameter_may_be_read_at_indices_its_writes_do_not_name(tmp_path):
    """lud's internal blocks: one written index, two others read (each tested apart from it at the
    launch); a second written index makes no own parameter."""
    kernel = """
__global__ void k(float *m, int n, int base) {
  int row = base + (blockIdx.y + 1) * BS, col = base + (blockIdx.x + 1) * BS;
  float up = m[(base + threadIdx.y) * n + col + threadIdx.x];
  float left = m[(row + threadIdx.y) * n + base + threadIdx.x];
  m[(row + threadIdx.y) * n + col + threadIdx.x] -= up * left;%s
}"""
    src = tmp_path / "k.cu"
    src.write_text(HEAD + "#define BS 16\n" + kernel % "")
    [kp] = readonly_params(query(parse_file(src))).values()
    [o] = kp.own
    assert len(o.apart) == 2 and o.form.values()[6] == ("((long long)(base) * (long long)(n) + (long long)(1) * "
                                                         "(long long)(BS) * (long long)(n) + (long long)(base) + "
                                                         "(long long)(1) * (long long)(BS))")
    src.write_text(HEAD + "#define BS 16\n" + kernel % "\n  m[base] = 0;")
    assert [kp.own for kp in readonly_params(query(parse_file(src))).values()] in ([], [()])


def test_an_index_a_counted_loop_steps_each_round_is_an_own_index_over_the_loop(tmp_path):
    """`at += cols` as the last statement of a counted loop's body: at its uses in the loop, `at` is its
    value before the loop plus cols times the round's number (the loop's coordinate); a step that a
    round may skip, or a use after it, keeps the parameter from being own."""
    body = """
__global__ void k(float *m, int rows, int cols) {
  int at = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rows; ++r) {
    %s
  }
}"""
    assert owned(tmp_path, body % "m[at] = 1.0f; at += cols;") == {
        "k": [("m", "::hirace::own_index((1ll), 0ll, 0ll, ((long long)(blockDim.x)), 0ll, 0ll, 0ll, "
                    "((long long)(cols)), ((long long)((long long)(1) > 0 && (long long)(rows) <= 2147483647ll - "
                    "(long long)(1) + 1 ? ((long long)(rows) - (long long)(0) + "
                    "(long long)(1) - 1) / (long long)(1) : (1ll << 40))))")]}
    for code in ("if (cols > 2) continue; m[at] = 1.0f; at += cols;",   # a round that skips its step
                 "m[at] = 1.0f; if (r == 2) (at) = 0; at += cols;",     # a change written in parentheses
                 "at += cols; m[at] = 1.0f;",                          # the step before the use
                 "m[at] = 1.0f; if (rows > 1) at += cols;"):           # a step that is not the body's last statement
        assert owned(tmp_path, body % code) == {}, code


def test_on_the_cpu_backend_an_induction_index_keeps_the_version_where_the_rows_are_wide_enough(tmp_path):
    """engine/induction_rows.cu: launch 0's rows are 64 wide for 64 threads, and it runs the copy;
    launch 1's are 32, two threads' columns meet: the host's test refuses the copy and the kernel
    reports the race. down reads its rows from one loop and writes them one row lower from another:
    one form over both loops' rounds (own_index.along_loop), whose copy runs where it is own."""
    from hirace import runner
    from hirace.config import Config
    from hirace.results import collect
    from instrument import logs
    from instrument.backends.cpu import CpuBackend
    from instrument.protocol import HIRACE_LOG, Env
    built = runner.build([CUDA / "engine" / "induction_rows.cu"], CpuBackend(), tmp_path / "b", Config())
    log = tmp_path / "log.jsonl"
    r = built.backend.run(built.exe, env={Env.HIRACE_LOG: str(log)})
    assert r.returncode == 0 and r.stdout == "sum 1534\n", r.stderr
    assert [(x.kernel, x.quiet) for x in logs.read(log, HIRACE_LOG, "hirace's log")["launch"]] == \
        [("scale", 1), ("scale", 0), ("down", 1), ("down", 0)]
    report = collect(log, built.sites)
    assert {(x.launch, x.site.line, x.kind) for x in report.races} == {(1, 14, "read-write"), (3, 23, "read-write")}


def test_reads_at_other_rounds_of_the_written_forms_loop_are_one_form_with_it(tmp_path):
    """lud_diagonal: rows read from `at = base` and written from `at = base + cols`, each loop moving
    `at` by cols: one form over the rounds either reaches (no forms_apart test, which the thread's own
    read of what it writes would fail); reads that differ by less than a step stay apart."""
    body = """
__global__ void k(float *m, int rows, int cols) {
  int at = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int r = 0; r < rows; ++r) { s += m[at%s]; at += cols; }
  at = blockIdx.x * blockDim.x + threadIdx.x + cols;
  for (int r = 1; r < rows; ++r) { m[at] = s; at += cols; }
}"""
    def forms(read):
        (src := tmp_path / "k.cu").write_text(HEAD + body % read)
        (kp,) = readonly_params(query(parse_file(src))).values()
        (o,) = kp.own
        return o.form, o.apart
    form, apart = forms("")
    assert apart == () and form.loop is not None
    assert form.values()[6] == "0ll"   # (from the reads' start: the writes' is one step, cols, above it)
    assert " > " in form.loop[1]      # (the count: the longer reach of the two loops)
    form, apart = forms(" + 1")   # (a word to the side: the runtime's forms_apart decides)
    assert len(apart) == 1 and "cols" in form.values()[6]


def test_a_parameter_moved_by_numbers_before_its_accesses_has_them_in_its_index(tmp_path):
    """convolutionSeparable's `d_Dst += baseY * pitch + baseX;` then `d_Dst[i * ROWS]`."""
    kernel = """
__global__ void k(float *out, const float *in, int pitch) {
  const int x = blockIdx.x * BS + threadIdx.x, y = blockIdx.y;
  out += y * pitch + x;%s
  for (int i = 0; i < 4; i++) out[i * BS * gridDim.x] = in[i];
}"""
    got = owned(tmp_path, kernel % "")
    assert got == {"k": [("out", "::hirace::own_index((1ll), 0ll, 0ll, ((long long)(BS)), ((long long)(pitch)), 0ll, "
                                 "((long long)(0) * (long long)(BS) * (long long)(gridDim.x)), "
                                 "((long long)(1) * (long long)(BS) * (long long)(gridDim.x)), ((long long)((long long)(1) > 0 && "
                                 "(long long)(4) <= 2147483647ll - (long long)(1) + 1 ? "
                                 "((long long)(4) - (long long)(0) + (long long)(1) - 1) / (long long)(1) : (1ll << 40))))")]}
    assert owned(tmp_path, kernel % "\n  if (x == 0) out += 1;") == {}   # moved inside a branch
    again = owned(tmp_path, kernel.replace("out += y * pitch + x;", "out = out + (y * pitch + x);") % "")
    assert again == {"k": [("out", got["k"][0][1])]}   # (`p = p + n`: as `p += n`)


MERGE = """
__global__ void k(unsigned *dst, const unsigned *src, unsigned stride) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned pos = %s;
  unsigned a = src[pos + 0], b = src[pos + stride];
  dst[pos + 0] = a;
  dst[pos + %s] = b;
}"""


@pytest.mark.parametrize("pos, other, radix", [
    ("2 * i - (i & (stride - 1))", "stride", 2),             # sortingNetworks' bitonicMergeGlobal
    ("((i - (i & (stride - 1))) << 2) + (i & (stride - 1))", "stride", 4),   # fastWalshTransform's radix 4
    ("(i & (stride - 1)) + 2 * (i - (i & (stride - 1)))", "stride", 2),      # (the same, written otherwise)
    ("2 * i + (i & (stride - 1))", "stride", None),          # +1 times the mask: no butterfly
    ("3 * i - (i & (stride - 1))", "stride", None),          # 3G - M: R would be 2, G's coefficient 3
    ("2 * i - ((i + 1) & (stride - 1))", "stride", 2),       # G = i + 1: 2G - (G & M) - 2
    ("2 * i - ((2 * i) & (stride - 1))", "stride", None),    # G = 2i: its coefficient would be 4
    ("2 * i - (i & (stride - 1))", "1", 2),                  # a step of 1: the launch's test fails it (not S)
    ("2 * i - (i & (threadIdx.x - 1))", "stride", None),     # a mask that is not uniform
])
def test_a_butterfly_index_is_an_own_index_with_a_fold(tmp_path, pos, other, radix):
    """`2 * i - (i & (stride - 1))` (R = 2) and `((i - lo) << 2) + lo` (R = 4): R times G less R - 1 times
    G & M is own_index.Fold, with writes a whole step apart one more coordinate (stepped); its reads,
    at the same indices, pair with it; anything else with a mask of G is no own index."""
    src = tmp_path / "k.cu"
    src.write_text(HEAD + MERGE % (pos, other))
    found = readonly_params(query(parse_file(src)))
    kp = next(iter(found.values()), None)
    if radix is None:
        assert kp is None or not kp.own
        return
    (o,) = kp.own
    assert o.form.fold is not None and o.form.fold.radix == radix and o.form.loop is not None
    values = o.form.values()
    assert len(values) == 17 and values[15] == "((long long)((stride - 1)))" and values[16] == f"{radix}ll"
    assert values[7] == ("((long long)(stride))" if other == "stride" else "(1ll)") and values[8] == "((long long)(2))"
    assert values[:6] == ["0ll"] * 6   # (every coordinate in G)
    assert values[9:15] == ["(1ll)", "0ll", "0ll", "((long long)(blockDim.x))", "0ll", "0ll"]
    assert kp.pairs == (((0, 1),) if other == "stride" else ())   # (reads where it writes: paired)


def test_local_pointers_made_from_parameters_are_accesses_through_them(tmp_path):
    """fastWalshTransform's `float *d_Dst = d_Output + blockIdx.y * N;`: an access through such a pointer is
    one through the parameter, at the number plus its index; a pointer changed, made by a cast, declared
    inside a branch or made from a moved parameter is no such pointer."""
    kernel = """
__global__ void k(float *out, const float *in, int n) {
  const int row = blockIdx.y * n;
  const float *src = in + row;
  float *dst = %s;%s
  dst[threadIdx.x] = src[threadIdx.x] * 2;
}"""
    want = ("out", "::hirace::own_index((1ll), 0ll, 0ll, 0ll, ((long long)(n)), 0ll, 0ll)")
    assert owned(tmp_path, kernel % ("out + row", "")) == {"k": [want]}
    assert owned(tmp_path, kernel % ("&out[row]", "")) == {"k": [want]}
    assert owned(tmp_path, kernel % ("row + out", "")) == {"k": [want]}
    assert owned(tmp_path, kernel % ("out + (row)", "")) == {"k": [want]}
    minus = owned(tmp_path, kernel % ("out - row", ""))
    assert minus == {"k": [("out", "::hirace::own_index((1ll), 0ll, 0ll, 0ll, (- (long long)(n)), 0ll, 0ll)")]}
    for made, more in [("out + row", "\n  if (n) dst += 1;"),          # changed
                       ("(float *)((char *)out + row)", ""),            # a cast
                       ("out + row", "\n  float *&r = dst; r = out;"),  # bound to a reference
                       ("out + row", "\n  dst[n] = 0;"),               # another index
                       ("out + (in - (const float *)out)", "")]:        # where another pointer points
        assert owned(tmp_path, kernel % (made, more)) == {}, (made, more)
    assert params(tmp_path, kernel % ("out + row", "")) == {"k": (["in"], ["out"])}
    assert params(tmp_path, kernel % ("out + (in - (const float *)out)", "")) == {}   # (a pointer made, not moved)
    # (in a loop's rounds, numbers added twice, `*q`: shfl_scan's `unsigned int *p = img + (threadIdx.y + step * 8)
    # * width + tidx;` then `*p = sum;`)
    rounds = owned(tmp_path, """
__global__ void k(float *out, int n) {
  for (int s = 0; s < 4; s++) {
    float *q = out + (threadIdx.y + s * 2) * n + threadIdx.x;
    *q = *q + 1;
  }
}""")
    assert rounds == {"k": [("out", "::hirace::own_index((1ll), ((long long)(n)), 0ll, 0ll, 0ll, 0ll, "
                                    "((long long)(0) * (long long)(2) * (long long)(n)), ((long long)(1) * (long long)(2) "
                                    "* (long long)(n)), ((long long)((long long)(1) > 0 && (long long)(4) <= 2147483647ll - "
                                    "(long long)(1) + 1 ? ((long long)(4) - (long long)(0) + "
                                    "(long long)(1) - 1) / (long long)(1) : (1ll << 40))))")]}


def test_a_write_through_a_moved_parameter_leaves_shared_reads_quiet(run_cli, tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("""#define BS 32
__global__ void k(float *out, const float *in) {
  __shared__ float s[BS];
  out += blockIdx.x * BS;
  s[threadIdx.x] = in[blockIdx.x * BS + threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[BS - 1 - threadIdx.x];
}
""")
    r = run_cli("hirace.cli", "explain", src)
    assert r.returncode == 0, r.stderr
    assert "read s[BS - 1 - threadIdx.x]: bounds only: quiet shared read" in r.stdout
    assert "write out[threadIdx.x]: bounds only: own parameter" in r.stdout


def test_a_kernel_templates_integer_parameter_is_a_uniform_coefficient(tmp_path):
    """`template <int T>`: every thread of an instantiation has T's one value, and nothing changes it;
    the own-index test names it as the kernel does (computed at the kernel's entry, where it is in scope).
    A parameter whose type a template argument gives may be anything: not taken."""
    got = owned(tmp_path, """
template <int T> __global__ void mm(float *c, int n) {
  int row = blockIdx.y * T + threadIdx.y;
  int at = n * row + T * blockIdx.x + threadIdx.x;
  c[at] = 1;
}
template <int T> __global__ void half(float *c) { c[blockIdx.x * (T / 2) + threadIdx.x] = 0; }
template <typename I, I S> __global__ void typed(float *c) { c[blockIdx.x * S + threadIdx.x] = 0; }
template <bool B> __global__ void on(float *c) { c[blockIdx.x * B + threadIdx.x] = 0; }""")
    assert got == {
        "mm": [("c", "::hirace::own_index((1ll), ((long long)(n)), 0ll, ((long long)(T)), "
                     "((long long)(T) * (long long)(n)), 0ll, 0ll)")],
        "half": [("c", "::hirace::own_index((1ll), 0ll, 0ll, ((long long)(T / 2)), 0ll, 0ll, 0ll)")]}


OWN_KERNEL = """
__device__ float put(const float *p) { return p[1]; }
__global__ void k(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = i;
  k += 1;
  %s
}"""


def test_own_index_decides_from_the_launch_shape(run_cli, tmp_path):
    """hirace/runtime.h own_index on the cpu backend: distinct indices for every thread, or not; and
    forms_apart: whether any thread's element of one index is any thread's of another."""
    src = tmp_path / "shapes.cu"
    src.write_text("""#include <cstdio>
#include "hirace/runtime.h"
__global__ void probe(long long ctx, long long cty, long long cbx, long long cby, long long ck = 0, long long nk = 1) {
  if (threadIdx.x + threadIdx.y + blockIdx.x + blockIdx.y == 0)
    printf("%d", (int)::hirace::own_index(ctx, cty, 0, cbx, cby, 0, -7, ck, nk));
}
// W = 16 ty + tx + 64 by + 4 bx + 64 (a 16-wide matrix's tiles below and right of 0), R = 16 ty + tx + 4 bx +
// 4 + 16 lag (the strip above them, `lag` rows down)
__global__ void strips(long long lag) {
  if (threadIdx.x + threadIdx.y + blockIdx.x + blockIdx.y == 0)
    printf("%d", (int)::hirace::forms_apart(1, 16, 0, 4, 64, 0, 68, 0, 1, 1, 16, 0, 4, 0, 0, 4 + 16 * lag, 0, 1));
}
int main() {
  strips<<<dim3(3, 3), dim3(4, 4)>>>(0);               // apart
  strips<<<dim3(3, 3), dim3(4, 4)>>>(4);               // the strip is the first row of tiles
  strips<<<dim3(3, 3), dim3(4, 4)>>>(16);              // below every tile
  strips<<<dim3(3, 3), dim3(4, 4)>>>(15);              // its first row is the last tiles' last row
  probe<<<4, 32>>>(1, 0, 32, 0);                       // 32 * bx + tx: own
  probe<<<4, 32>>>(1, 0, 16, 0);                       // the blocks overlap
  probe<<<4, dim3(8, 2)>>>(1, 0, 16, 0);               // ty varies and is not in the index
  probe<<<dim3(2, 3), dim3(8, 2)>>>(1, 8, 16, 32);     // two dimensions: own
  probe<<<dim3(2, 3), dim3(8, 2)>>>(-1, 8, -16, 32);   // negative coefficients: own
  probe<<<dim3(2, 3), dim3(8, 2)>>>(1, 8, 16, 31);     // the last rows overlap
  probe<<<4, 32>>>(1, 0, 1 << 29, 0);                  // spread over 3 * 2^29 + 31: own
  probe<<<4, 32>>>(1, 0, 1 << 30, 0);                  // spread past 2^31
  probe<<<1, 1>>>(0, 0, 0, 0);                         // one thread: own
  probe<<<4, dim3(8, 2)>>>(1, 8, 64, 0, 16, 4);        // a loop of 4 steps of 2 rows (8 wide): own
  probe<<<4, dim3(8, 4)>>>(1, 8, 64, 0, 16, 4);        // blocks of 4 rows: step i + 1 meets row r + 2
  probe<<<4, dim3(8, 2)>>>(1, 8, 64, 0, 16, 0);        // a loop of no step: as one
  probe<<<4, dim3(8, 2)>>>(1, 8, 64, 0, 16, 1ll << 40);   // a step that is not positive
  probe<<<4, 32>>>(1, 0, 32, 0, 128, 8);               // a grid-stride loop over the whole grid: own
  probe<<<4, 32>>>(1, 0, 32, 0, 32, 32);               // a stride of one block: block 1 is block 0's next round
  probe<<<4, 32>>>(1, 0, 32, 0, 1, 1000);              // a stride of one: every thread's run meets the next
  cudaDeviceSynchronize();
  printf("\\n");
  return 0;
}""")
    r = run_cli("instrument.run", "--backend", "cpu", "-I", RUNTIME_INCLUDE, src)
    assert r.returncode == 0 and r.stdout == "10101001101011010100\n", r.stderr


@pytest.mark.parametrize("flag", ["--quiet-reads", "--no-quiet-reads"])
def test_own_parameters_are_checked_where_threads_meet_or_buffers_are_shared(run_cli, tmp_path, flag):
    """engine/own_index.cu: nothing in the launch of fitting blocks; the write-write race of the wider
    blocks, the read-write races of one buffer passed twice and the write past the end are found,
    alike with and without the quiet checks."""
    out = tmp_path / "r.json"
    src = CUDA / "engine" / "own_index.cu"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", flag, "--format", "json", "--output", out, src)
    assert r.returncode == 1 and r.stdout == "done\n", r.stderr
    doc = json.loads(out.read_text())
    assert sorted((x["launch"], x["site"]["line"], x["kind"]) for x in doc["races"]) == [
        (1, 12, "write-write"), (2, 12, "read-write"), (2, 12, "read-write"), (2, 13, "read-write")]
    assert [(m["launch"], m["site"]["line"], m["offset"]) for m in doc["memory_errors"]] == [(3, 12, 1024), (3, 13, 1024)]
    if flag == "--quiet-reads":
        ins = run_cli("hirace.cli", "instrument", "-o", tmp_path / "i", src)
        text = (tmp_path / "i" / "own_index.cu").read_text()
        assert text.count("::hirace::wr_own(") == 1 and text.count("::hirace::rmw_own(") == 1
        assert text.count("::hirace::rd_param(") == 2 and "const bool __hirace_own0 = ::hirace::own_index(" in text


SHARED_CLASS = """
template <class T> struct SharedMemory {
  __device__ operator T *() { extern __shared__ int smem_[]; return (T *)smem_; }
};
struct Elsewhere {
  __device__ operator int *() { return &flag; }
};
template <class T> __device__ T lane_sum(T v) { return v + __shfl_down_sync(0xffffffffu, v, 1); }
template <class T> __global__ void red(const T *in, T *out) {
  T *sdata = %s;
  sdata[threadIdx.x] = lane_sum<T>(in[threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = sdata[0] + sdata[1];
}"""


@pytest.mark.parametrize("init, quiet", [
    ("SharedMemory<T>()", True),      # every conversion operator returns the extern shared array
    ("Elsewhere()", False),           # one returns a __device__ variable: stores through it may reach anything
    ("(T *)SharedMemory<int>()", False),   # (a cast of the object: not followed)
])
def test_a_pointer_from_a_class_that_yields_extern_shared_memory_is_shared(tmp_path, init, quiet):
    """The samples' `T *sdata = SharedMemory<T>();`: stores through sdata are stores to shared memory,
    so `in` stays a read-only parameter; a class whose conversion may yield other memory does not."""
    got = params(tmp_path, SHARED_CLASS % init)
    assert (got.get("red") == (["in"], ["out"])) == quiet, got


@pytest.mark.parametrize("flag", ["--quiet-reads", "--no-quiet-reads"])
def test_a_kernel_with_shared_memory_through_a_class_reports_the_race_of_aliased_arguments(run_cli, tmp_path, flag):
    """engine/shared_memory_class.cu: no race while in and out are two buffers (the reads of in are
    only bounds-checked); passing one buffer as both makes block 1's store race with block 0's read."""
    out = tmp_path / "r.json"
    src = CUDA / "engine" / "shared_memory_class.cu"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", flag, "--format", "json", "--output", out, src)
    assert r.returncode == 1 and r.stdout == "sum 1024\n", r.stderr
    doc = json.loads(out.read_text())
    assert sorted({(x["launch"], x["site"]["line"], x["kind"]) for x in doc["races"]}) == [(1, 24, "read-write")]
    assert doc["memory_errors"] == []
    if flag == "--quiet-reads":
        ins = run_cli("hirace.cli", "instrument", "-o", tmp_path / "i", src)
        assert ins.returncode == 0, ins.stderr
        assert "::hirace::rd_param(&(in[i])" in (tmp_path / "i" / "shared_memory_class.cu").read_text()


def test_parameters_reached_only_by_device_atomics_are_atomic_candidates(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(HEAD + """
__global__ void sums(const int *in, int *total, int *bins, int *blockwise, int *mixed, int *passed) {
  int v = in[threadIdx.x];
  atomicAdd(total, v);
  atomicMax(&bins[v % 8], v);
  atomicAdd(&bins[1], 1);
  atomicAdd_block(blockwise, v);      // block scope: blocks race on it
  atomicAdd(mixed, v);
  mixed[threadIdx.x] = 0;             // also written plainly
  atomicAdd(passed, v + (passed != nullptr));   // named elsewhere too
}""")
    (kp,) = readonly_params(query(parse_file(src))).values()
    assert [kp.kernel.params[i] for i in kp.atomic] == ["total", "bins"]
    # their bits follow the read-only candidates' and count as own bits (quiet where no other pointer
    # argument points into their buffer); every pointer parameter is passed
    assert kp.bits[-2:] == (1, 2) and kp.own_mask >> (len(kp.bits) - 2) == 0b11
    assert len(kp.pointers) == 6


@pytest.mark.parametrize("again", ["{ int *p = q; p[threadIdx.x] = v; }",
                                   "auto put = [&](int *p) { p[threadIdx.x] = v; }; put(q);"])
def test_a_parameters_name_declared_again_makes_no_candidate(tmp_path, again):
    """An inner local or a lambda's parameter named like a parameter: a write through it may be to another
    parameter's buffer (here q's, whose read would else be quiet and its race missed)."""
    body = "__global__ void k(int *p, int *q) {\n  int v = q[(threadIdx.x + 1) & 31];\n  " + again + "\n}"
    assert params(tmp_path, body) == {}, again
    why = {}
    src = tmp_path / "k.cu"
    readonly_params(query(parse_file(src)), why=why)
    assert why == {"k": "it declares the name of its parameter p again"}


def test_a_plain_structs_own_assignment_and_a_context_call_write_nothing_else(tmp_path):
    """BlackScholes: `out[i] = make_float2(a, b)` calls float2's implicit assignment, whose write is the access
    itself, and a device function that writes only through its reference parameters, called on locals, writes no
    parameter's buffer: the kernel keeps its candidates. A struct whose assignment the program writes may write
    anywhere: none."""
    body = """
struct P { int a; __device__ P &operator=(const P &o) { a = o.a; flag = o.a; return *this; } };
__device__ inline void body(float &c, float &p, float s) { c = 2 * s; p = s; }
__global__ void plain(float2 *out, const float *in) {
  float c, p;
  body(c, p, in[threadIdx.x]);
  out[threadIdx.x] = make_float2(c, p);
}
__global__ void own(P *out, const P *in) { out[threadIdx.x] = in[threadIdx.x]; }
"""
    assert params(tmp_path, body) == {"plain": (["in"], ["out"])}


def test_fold_index_is_own_only_where_no_two_threads_meet(run_cli, tmp_path):
    """hirace/quiet.h fold_index_of, the launch's test of a butterfly's index (own_index.Fold), against every
    thread's elements counted out: over random shapes, strides (powers of two and not), radices, steps
    and coefficients, no case the test calls own has two threads at one element; and it calls enough own
    (the shapes the butterflies launch with) for the proof to be worth having."""
    src = tmp_path / "fold.cu"
    src.write_text("""#include <cstdio>
#include <map>
#include "hirace/runtime.h"
static unsigned long long seed = 12345;
static long long pick(long long n) { seed = seed * 6364136223846793005ull + 1442695040888963407ull; return (long long)(seed >> 33) % n; }
int main() {
  const long long strides[] = {1, 2, 3, 4, 6, 8, 16, 0};
  const long long coefs[] = {0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, -16};
  int wrong = 0, own = 0, cases = 0;
  for (int c = 0; c < 20000; ++c) {
    dim3 block(1 + pick(8), 1 + pick(2), 1), grid(1 + pick(4), 1 + pick(2), 1);
    long long n[4] = {block.x, block.y, grid.x, grid.y}, at[4] = {0, 1, 3, 4};   // (tx, ty, bx, by)
    long long s = strides[pick(8)], r = 2 + pick(3), count = 1 + pick(r + 1), step = pick(4) ? s : s + 1;
    long long h[9] = {0, 0, 0, 0, 0, 0, pick(3) * 7, step, count}, g[6] = {0, 0, 0, 0, 0, 0}, g0 = pick(2) * 5;
    for (int i = 0; i < 4; ++i) {   // (each coordinate in G or the rest; often the usual G, tx + blockDim.x * bx)
      long long v = pick(2) && (i == 0 || i == 2) ? (i == 0 ? 1 : n[0]) : coefs[pick(13)];
      (pick(3) || i == 0 ? g : h)[at[i]] = v;
      if (pick(8) == 0) h[at[i]] = coefs[pick(13)];   // (now and then in both)
    }
    bool ok = ::hirace::fold_index_of(block, grid, h, g, s - 1, r);
    std::map<unsigned, long long> owner;
    bool meet = false;
    for (long long by = 0; by < n[3]; ++by) for (long long bx = 0; bx < n[2]; ++bx)
    for (long long ty = 0; ty < n[1]; ++ty) for (long long tx = 0; tx < n[0]; ++tx) {
      long long t = ((by * n[2] + bx) * n[1] + ty) * n[0] + tx, x[6] = {tx, ty, 0, bx, by, 0};
      unsigned G = (unsigned)g0, H = (unsigned)h[6];
      for (int i = 0; i < 6; ++i) { G += (unsigned)(g[i] * x[i]); H += (unsigned)(h[i] * x[i]); }
      unsigned lo = G & (unsigned)(s - 1);
      for (long long k = 0; k < (count < 1 ? 1 : count); ++k) {
        unsigned e = H + (unsigned)r * (G - lo) + lo + (unsigned)(step * k);
        auto it = owner.find(e);
        if (it != owner.end() && it->second != t) meet = true;
        owner[e] = t;
      }
    }
    ++cases;
    own += ok;
    if (ok && meet) {
      ++wrong;
      if (wrong < 5) printf("wrong: block %u,%u grid %u,%u s %lld r %lld count %lld step %lld\\n", block.x, block.y, grid.x, grid.y, s, r, count, step);
    }
  }
  printf("cases %d own %d wrong %d\\n", cases, own, wrong);
  return 0;
}
""")
    r = run_cli("instrument.run", "--backend", "cpu", "-I", RUNTIME_INCLUDE, src)
    assert r.returncode == 0, r.stderr
    cases, own, wrong = (int(v) for v in re.search(r"cases (\d+) own (\d+) wrong (\d+)", r.stdout).groups())
    assert wrong == 0, r.stdout
    assert cases == 20000 and own > 500, r.stdout


@pytest.mark.parametrize("loop, own", [
    ("for (int j = 0; j < n; j++)", True),
    ("for (unsigned j = 0; j < u; j++)", True),
    ("for (unsigned j = 0; j < n; j++)", True),          # n as the comparison has it: (unsigned int)(n)
    ("for (int j = 0; j < u; j++)", False),              # an int compared unsigned: refused
    ("for (unsigned long long j = 0; j < u; j++)", True),    # a size_t's: U below 2^63 at the launch
])
def test_a_counted_loops_rounds_are_counted_as_the_program_compares_and_steps(tmp_path, loop, own):
    """The count of `for (j = L; j < U; j += S)` takes U in the comparison's type and S in j's, and fails the
    launch's test where a round would step past j's largest value (corpus loop_count_unsigned_race.cu,
    loop_step_unsigned_race.cu)."""
    got = owned(tmp_path, """
__global__ void k(float *out, int n, unsigned u) {
  %s out[j * 64 + threadIdx.x] = 1;
}""" % loop)
    assert bool(got) == own, got
    if own:
        text = got["k"][0][1]
        assert "<= 2147483647ll" in text or "<= 4294967295ll" in text or ">= 0 && " in text
        assert ("(unsigned int)(n)" in text) == (loop == "for (unsigned j = 0; j < n; j++)")


SHARED_HELPERS = """
__device__ void add_one(unsigned *bins, unsigned d) { atomicAdd(bins + d, 1u); }
__device__ void add_word(unsigned *bins, unsigned w) { add_one(bins, w & 15u); add_one(bins, (w >> 4) & 15u); }
__device__ void bump(unsigned char *col, unsigned d) { col[d * 64]++; }
__device__ void both(unsigned *sp, unsigned *gp, unsigned i) { add_one(gp, i); sp[i] = 0; }
__device__ void moved(unsigned *p, unsigned i) { p = p + 1; p[i] = 1; }
__device__ void keep(unsigned *p, unsigned **where) { *where = p; }
__global__ void hist(const unsigned *in, unsigned *part, unsigned n) {
  __shared__ unsigned s[4 * 16];
  __shared__ unsigned char c[64 * 16];
  unsigned *mine = s + (threadIdx.x >> 5) * 16;
  unsigned char *col = &c[threadIdx.x];
  %s
  __syncthreads();
  if (threadIdx.x < 16) part[blockIdx.x * 16 + threadIdx.x] = s[threadIdx.x] + in[threadIdx.x];
}"""


@pytest.mark.parametrize("call, quiet", [
    ("add_word(mine, in[threadIdx.x]);", True),          # atomics two functions deep, into shared memory
    ("add_one(s, in[threadIdx.x] & 15u);", True),          # the array itself
    ("bump(col, in[threadIdx.x] & 15u);", True),           # a plain read-modify-write through a moved pointer
    ("add_one((unsigned *)part, in[threadIdx.x] & 15u);", False),   # into a parameter's buffer
    ("both(mine, (unsigned *)in, threadIdx.x);", False),  # one level down, into the read parameter's buffer
    ("unsigned *q = mine; if (n) q = part; add_one(q, 1u);", False),   # a pointer the kernel changes
    ("moved(mine, in[0]);", False),                       # the function changes its parameter
    ("unsigned *w; keep(mine, &w);", False),              # it writes the pointer out: a write elsewhere
])
def test_calls_that_reach_only_shared_memory_through_pointers_write_no_parameter(tmp_path, call, quiet):
    """shared_calls.py: a device function that touches memory only through its pointer parameters, each bound at
    the call to the kernel's shared memory, writes no buffer of the launch's."""
    got = params(tmp_path, SHARED_HELPERS % call)
    if quiet:
        assert got == {"hist": (["in"], ["part"])}
    else:
        assert "in" not in got.get("hist", ([], []))[0]
