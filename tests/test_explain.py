"""`hirace explain` and the proofs it reports (hirace/proofs): every site names the rule that reduced
its check to a bounds test, with the launch condition it needs, or says why it is checked whole;
every kernel says what the analyses made of it."""
from __future__ import annotations

import json
import re

from conftest import CUDA

from hirace import runner
from hirace.config import Config
from hirace.explain_cmd import explanation, render_text

HEAD = "#include <cuda_runtime.h>\n"


def explain(tmp_path, *sources, lower_cpu=False) -> dict:
    ins = runner.instrument(list(sources), tmp_path / "out", Config(), lower_cpu=lower_cpu)
    return explanation(ins.planner)


def by_text(data: dict) -> dict:
    return {(s["kind"], s["text"]): (s["proof"] or "whole", s["condition"] or s["why"]) for s in data["sites"]}


def test_each_site_of_a_program_gets_its_proof_and_condition(tmp_path):
    data = explain(tmp_path, CUDA / "engine" / "quiet_versions.cu")
    got = by_text(data)
    assert got[("write", "t[threadIdx.y][threadIdx.x]")] == (
        "own shared word",
        "(blockDim.z == 1 && blockDim.y <= sizeof(t) / sizeof(t[0]) && blockDim.x <= sizeof(t[0]) / sizeof(t[0][0]))")
    assert got[("read", "t[threadIdx.x][threadIdx.y]")][0] == "quiet shared read"
    assert got[("read", "in[y * cols + x]")][0] == "read-only parameter"
    # an own parameter's condition: the own-index test of its launch (here every thread names out[0]:
    # the test fails in any launch of two threads, and the whole check runs)
    assert got[("write", "out[0]")] == ("own parameter", "::hirace::own_index(0ll, 0ll, 0ll, 0ll, 0ll, 0ll, ((long long)(0)))")
    kernels = {k["name"]: k for k in data["kernels"]}
    assert kernels["tile"]["intervals"] == "analysed"
    assert kernels["rows"]["parameters"] == "analysed: read-only start, v; own out"
    assert data["summary"] == {"sites": 12, "bounds_only": 12, "whole": 0, "by_proof": {
        "own parameter": 4, "own shared word": 1, "quiet shared read": 2, "read-only parameter": 5}}


def test_a_kernel_not_analysed_says_why_and_its_sites_are_checked_whole(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(HEAD + """
__device__ int peek(const int *p) { return p[1]; }
__host__ __device__ int twice(int *p) { return p[0] * 2; }
__global__ void k(int *out, int n) {
  __shared__ int s[64];
  s[threadIdx.x] = out[threadIdx.x];
  if (threadIdx.x < n) __syncthreads();
  out[threadIdx.x] = s[threadIdx.x ^ 1] + peek(out) + twice(out);
}
__global__ void tree(float *out) {
  __shared__ float s[64];
  s[threadIdx.x] = 1.f;
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
    if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
""")
    data = explain(tmp_path, src)
    kernels = {k["name"]: k for k in data["kernels"]}
    assert kernels["k"]["intervals"] == ("its barrier at line 8 is conditional (inside a branch whose condition may "
                                         "differ between the block's threads)")
    assert kernels["tree"]["intervals"] == "analysed"
    got = by_text(data)
    proof, why = got[("read", "s[threadIdx.x ^ 1]")]
    assert proof == "whole" and "barrier intervals of 'k' not analysed: its barrier at line 8 is conditional" in why
    assert got[("read", "p[1]")] == ("whole", "in device function 'peek' (the proofs read kernels' own bodies)")
    assert got[("read", "p[0]")][1].startswith("in a __host__ __device__ function")
    assert got[("read", "s[threadIdx.x + d]")][0] == "quiet shared read"
    assert got[("rmw", "s[threadIdx.x]")][0] == "own shared word"
    assert all(s["proof"] or s["why"] for s in data["sites"])


def test_a_unit_with_a_form_the_proofs_do_not_follow_checks_every_access_whole_and_says_so(tmp_path):
    data = explain(tmp_path, CUDA / "races" / "memcpy_ok.cu")
    assert len(data["not_analysed"]) == 1 and "device code (memcpy at" in data["not_analysed"][0]
    assert data["sites"] and all(s["check"] == "whole" and s["why"] for s in data["sites"])
    assert all(k["intervals"] == data["not_analysed"][0] for k in data["kernels"])


def test_a_device_memcpy_between_a_threads_own_locals_leaves_the_proofs_on(tmp_path):
    """memcpy(&local, local_array, n) touches only the thread's own locals: the unit's kernels are analysed
    (a copy into a parameter's memory, or through a local pointer, still turns them off)."""
    data = explain(tmp_path / "ok", CUDA / "races" / "local_copy_ok.cu")
    assert data["not_analysed"] == []
    got = by_text(data)
    assert got[("write", "s[threadIdx.x]")][0] == "own shared word"
    assert got[("read", "in[threadIdx.x]")][0] == "read-only parameter"
    assert got[("write", "&p")] == ("whole", "the bytes a device memcpy touches")   # (locals: checked as before)
    for i, (dst, decl) in enumerate([("q", "int *q = out;"), ("out", ""), ("&r", "int &r = out[0];"),
                                     ("&g", "")]):
        src = tmp_path / f"copy{i}.cu"
        src.write_text(HEAD + "#include <cstring>\n__device__ int g;\n__global__ void k(const int *in, int *out) {\n"
                       f"  int v[1] = {{in[threadIdx.x]}};\n  {decl}\n  memcpy({dst}, v, sizeof(int));\n"
                       "  out[threadIdx.x + 1] = in[threadIdx.x];\n}\n")
        data = explain(tmp_path / str(i), src)
        assert len(data["not_analysed"]) == 1 and "device code (memcpy at" in data["not_analysed"][0], dst


def test_a_thread_blocks_rank_is_its_x_coordinate_where_the_kernel_names_no_other(tmp_path):
    """`cta.thread_rank()` of a cooperative_groups::thread_block stands for threadIdx.x (own_index.block_rank),
    but a tile's rank, a rank of a block sliced to a thread_group, and any rank in a kernel that names
    threadIdx.y do not."""
    src = tmp_path / "ranks.cu"
    src.write_text(HEAD + """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void block(int *out) {
  __shared__ int s[256];
  cg::thread_block cta = cg::this_thread_block();
  s[cta.thread_rank()] = 1;
  __syncthreads();
  out[(size_t)blockIdx.x * blockDim.x + cta.thread_rank()] = s[0];
}
__global__ void tile(int *out) {
  __shared__ int s[256];
  cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());
  s[t.thread_rank()] = 1;
  __syncthreads();
  out[(size_t)blockIdx.x * blockDim.x + t.thread_rank()] = s[0];
}
__global__ void group(int *out) {
  __shared__ int s[256];
  cg::thread_group g = cg::this_thread_block();
  s[g.thread_rank()] = 1;
  __syncthreads();
  out[(size_t)blockIdx.x * blockDim.x + g.thread_rank()] = s[0];
}
__global__ void named_y(int *out) {
  __shared__ int s[256];
  cg::thread_block cta = cg::this_thread_block();
  s[cta.thread_rank()] = threadIdx.y;
  __syncthreads();
  out[(size_t)blockIdx.x * blockDim.x + cta.thread_rank()] = s[0];
}
""")
    data = explain(tmp_path / "out", src)
    proofs = {}
    for site in data["sites"]:
        if site["kind"] == "write":
            proofs.setdefault(site["function"], []).append(site["proof"] or "whole")
    assert proofs == {"block": ["lanes apart", "own parameter"], "tile": ["whole", "whole"],
                      "group": ["whole", "whole"], "named_y": ["whole", "whole"]}


def test_a_rank_taken_for_x_asks_for_blocks_one_thread_high_and_deep(tmp_path):
    """`s[cta.thread_rank() + blockDim.x]` is apart from `s[cta.thread_rank()]` by x alone; but a rank is x only
    in blocks one thread high and deep (in a block of two rows thread (0, 1) writes the word thread (0, 0) reads),
    so any proof of them asks for that; a rank's lone write is each thread's own there; a tile's `cta` in an inner
    scope is no block's rank."""
    src = tmp_path / "ranks2.cu"
    src.write_text(HEAD + """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(const float *in, float *out) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ float s[512];
  s[cta.thread_rank()] = in[0];
  float v = s[cta.thread_rank() + blockDim.x];
  out[0] = v;
}
__global__ void alone(const float *in, float *out) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ float s[512];
  s[cta.thread_rank()] = in[0];
  __syncthreads();
  out[0] = s[1];
}
__global__ void inner(float *out) {
  __shared__ float s[64];
  cg::thread_block cta = cg::this_thread_block();
  s[cta.thread_rank()] = 1;
  {
    cg::thread_block_tile<32> cta = cg::tiled_partition<32>(cg::this_thread_block());
    s[cta.thread_rank()] = 2;
  }
  __syncthreads();
  out[0] = s[0];
}
""")
    data = explain(tmp_path / "out", src)
    got = {(x["function"], x["kind"], x["text"]): x for x in data["sites"]}
    one_high = lambda x: "blockDim.y == 1" in x["condition"] and "blockDim.z == 1" in x["condition"]   # noqa: E731
    for text in ("s[cta.thread_rank() + blockDim.x]", "s[cta.thread_rank()]"):   # (a proof, if any, asks for it)
        for kind in ("read", "write"):
            x = got.get(("k", kind, text))
            assert x is None or x["proof"] is None or one_high(x), x
    lone = got[("alone", "write", "s[cta.thread_rank()]")]
    assert lone["proof"] is not None and one_high(lone) and "sizeof(s)" not in lone["condition"].split("blockDim.z == 1")[0]
    assert all(x["proof"] is None for (f, kind, _), x in got.items() if f == "inner" and kind == "write")


def test_a_parameter_of_the_name_of_a_constant_pointer_is_still_checked(tmp_path):
    src = tmp_path / "shadow.cu"
    src.write_text(HEAD + """__constant__ float c_w[8];
__global__ void k(const float *w, float *out) {
  { const float *w = c_w + 4; out[threadIdx.x] = w[0]; }
  out[threadIdx.x] += w[threadIdx.x];
}
""")
    got = by_text(explain(tmp_path / "out", src))
    assert ("read", "w[threadIdx.x]") in got and ("read", "w[0]") in got


def test_shared_arrays_of_one_name_in_two_kernels_are_each_kernels_own(tmp_path):
    """`extern __shared__ int s[]` in one kernel and `__shared__ int s[32][2]` in another: the second's
    accesses name its own array (intervals.py array_named), not the extern one."""
    got = by_text(explain(tmp_path, CUDA / "races" / "shared_name_twice_ok.cu"))
    assert got[("write", "s[threadIdx.x][threadIdx.y]")][0] == "own shared word"
    assert got[("read", "s[(threadIdx.x + 1) % blockDim.x]")][0] == "quiet shared read"


def test_reads_through_a_local_pointer_into_constant_memory_are_no_sites(tmp_path):
    """`const int *row = &c_table[y][0]`: reads through it read __constant__ memory, which no thread writes (as
    the variable's own reads, no site), and they reach no parameter's buffer (the kernel keeps its own
    parameter); a pointer loaded from constant memory (`int *p = c_bufs[0]`) points anywhere: its accesses are
    sites."""
    got = by_text(explain(tmp_path / "ok", CUDA / "races" / "constant_pointer_ok.cu"))
    assert ("read", "row[b]") not in got
    assert got[("write", "out[blockIdx.x * blockDim.x + threadIdx.x]")][0] == "own parameter"
    got = by_text(explain(tmp_path / "race", CUDA / "races" / "constant_pointer_race.cu"))
    assert got[("write", "p[threadIdx.x / 2]")][0] == "whole"


def test_every_site_of_the_engine_programs_names_a_proof_or_why_it_is_checked_whole(tmp_path):
    sources = sorted(p for p in (CUDA / "engine").glob("*.cu") if p.name != "syntax_error.cu")
    assert len(sources) >= 10
    for i, src in enumerate(sources):
        data = explain(tmp_path / str(i), src)
        assert data["sites"], src
        for s in data["sites"]:
            assert (s["check"] == "bounds") == bool(s["proof"]) and (s["proof"] or s["why"]), (src, s)


def test_the_command_prints_text_and_json_and_writes_no_file_it_reads(run_cli, tmp_path):
    src = CUDA / "engine" / "quiet_versions.cu"
    r = run_cli("hirace.cli", "explain", src)
    assert r.returncode == 0, r.stderr
    assert "12:3: write t[threadIdx.y][threadIdx.x]: bounds only: own shared word, where (blockDim.z == 1" in r.stdout
    assert r.stdout.rstrip().splitlines()[-3].startswith("  own shared word: in its barrier interval")
    out = tmp_path / "e.json"
    r = run_cli("hirace.cli", "explain", "--format", "json", "-o", out, src)
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert json.loads(out.read_text())["summary"]["bounds_only"] == 12
    before = src.read_bytes()
    r = run_cli("hirace.cli", "explain", "-o", src, src)   # never over an input
    assert r.returncode == 2 and "it is an input of this run" in r.stderr and "Traceback" not in r.stderr
    assert src.read_bytes() == before


def test_every_check_a_rule_can_leave_is_a_quiet_form_of_the_runtime():
    """A rule's entry must have a namesake in the quiet versions' namespace (protocol.QUIET_FORMS,
    which quiet_version.h checks against the runtime at compile time): Proof refuses any other."""
    import pytest
    from hirace.proofs.intervals import Apart, LaneRanges, OwnForm
    from hirace.proofs.proof import Proof, Rule
    from hirace.proofs.rules import ENTRY
    from instrument.protocol import QUIET_FORMS
    entries = {"rd_bounds", "rd_param", "rd_paired", "atomic_param", "atomic_block_bounds", "atomic_device_bounds"}
    entries |= {e + "_own" for e in ENTRY.values()}
    entries |= {e + f.entry_suffix for e in ENTRY.values() for f in (OwnForm, LaneRanges, Apart)}
    assert entries <= set(QUIET_FORMS)
    with pytest.raises(ValueError):
        Proof(Rule.QUIET_SHARED_READ, "rd")


def test_kernels_of_one_name_in_two_namespaces_keep_their_own_proofs(tmp_path):
    """Each kernel's own-index variable and parameter bits are its own, found by its body, not its
    name (the selftest batches programs in namespaces: `__hirace_own1` was once used where only
    `__hirace_own0` was declared)."""
    src = tmp_path / "ns.cu"
    src.write_text(HEAD + """
namespace a { __global__ void k(const int *in, int *out, int *sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = in[i]; atomicAdd(sum, in[i]); } }
namespace b { __global__ void k(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = in[i] * n; } }
""")
    data = explain(tmp_path, src)
    own = [s for s in data["sites"] if s["proof"] == "own parameter"]
    assert len(own) == 2 and own[0]["condition"] == own[1]["condition"]
    assert [s["proof"] for s in data["sites"] if s["kind"] == "atomic"] == ["atomic parameter"]
    text = (tmp_path / "out" / "ns.cu").read_text()
    names = []
    for part in text.split("namespace b {"):   # (each kernel, and its quiet copy written after it)
        used = set(re.findall(r"__hirace_own\d+", part))
        assert used == set(re.findall(r"const bool (__hirace_own\d+) = ::hirace::own_index\(", part)), part
        names += sorted(used)
    assert len(names) == 2 and len(set(names)) == 2


def test_each_kernel_says_whether_it_gets_a_quiet_version_and_why_not(tmp_path, monkeypatch):
    """engine/template_launches.cu: fill and put have versions, run by the launches that name every
    template argument; pair has a site checked whole; sum's site lies in a loop whose count the data
    decides (a version only under the benchmark switch)."""
    src = CUDA / "engine" / "template_launches.cu"
    data = explain(tmp_path / "a", src)
    v = {k["name"]: k["quiet_version"] for k in data["kernels"]}
    launches = lambda name: [(x["line"], x["may_run"], x["why"]) for x in v[name]["launches"]]   # noqa: E731
    assert v["fill"]["has"] and launches("fill") == [(26, False, "its template arguments are deduced"), (27, True, None)]
    assert launches("put") == [(28, False, "its template arguments are deduced"), (29, True, None)]
    assert v["pair"] == {"has": False, "why": "a site checked whole (line 11:36)", "launches": []}
    assert v["sum"]["why"] == ("a site in a loop whose count the program decides as it runs (line 15; "
                               "HIRACE_BENCH_OPEN_LOOP_VERSIONS=1 gives it one, for measuring)")
    text = render_text(data)
    assert "  quiet version: yes, launched where its test holds from line 27\n" \
           "  launch at line 26 runs the kernel: its template arguments are deduced\n" in text
    assert "  quiet version: none: a site checked whole (line 11:36)\n" in text
    monkeypatch.setenv("HIRACE_BENCH_OPEN_LOOP_VERSIONS", "1")
    switched = {k["name"]: k["quiet_version"] for k in explain(tmp_path / "b", src)["kernels"]}
    assert switched["sum"] == {"has": True, "why": None,
                               "launches": [{"file": str(src), "line": 30, "may_run": True, "why": None}]}
    assert switched["pair"] == v["pair"]
