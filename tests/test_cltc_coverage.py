"""cltc coverage end to end on the cpu backend: exact numbers, reports, errors, unchanged output."""
from __future__ import annotations

import json
import shutil
from xml.etree import ElementTree as ET

import pytest

from cltestcheck import suite as suite_mod
from cltestcheck.build import build_instrumented
from cltestcheck.coverage import engine
from cltestcheck.coverage.planner import CoveragePlanner
from instrument import logs
from instrument.backends.cpu import CpuBackend
from instrument.protocol import COVERAGE_LOG

from conftest import CUDA, TESTS

SUITES = TESTS / "suites"


@pytest.fixture(scope="module")
def features():
    return engine.run(suite_mod.load(SUITES / "cov_features"), "cpu", progress=False)


def _status(res):
    return {(i.line, i.label): i.covered for i in res.items()}


def test_features_exact_numbers(features):
    tot = features.total()
    assert tot.branches == [15, 18]
    assert tot.loops["zero"] == [0, 0] and tot.loops["boundary"] == [0, 0]   # while (true): neither can happen
    assert tot.loops["one"] == [1, 1] and tot.loops["many"] == [1, 1]
    assert tot.barriers == [1, 1] and tot.divergent == 1
    st = _status(features)
    # switch fall-through: case 1 is covered by dispatch (v % 4 == 1), not by falling in from case 0
    assert st[(10, "switch (v % 4): case 0")] and st[(12, "switch (v % 4): case 1")]
    assert st[(15, "switch (v % 4): case 2")]
    assert not st[(9, "switch (v % 4): no case matched")]
    # short circuit: each operand's outcomes
    assert st[(27, "operand `mode > 0`: true")] and st[(27, "operand `mode > 0`: false")]
    assert not st[(27, "operand `v > 2`: true")] and st[(27, "operand `v > 2`: false")]
    assert not st[(27, "if (mode > 0 && v > 2): then")]


def test_features_divergent_barrier_names_block_and_count(features):
    (d,) = features.divergences()
    assert (d["line"], d["barrier"], d["function"]) == (42, "__syncthreads", "scan_partial")
    assert d["block"] == [0, 0, 0] and d["arrived"] == 40 and d["threads"] == 64
    assert d["tests"] == ["mixed"]


def test_features_per_test_contribution(features):
    c = {x["test"]: x for x in features.contributions()}
    assert c["zeros"]["covered"] == 11 and c["zeros"]["unique"] == 2
    assert c["mixed"]["covered"] == 16 and c["mixed"]["unique"] == 7
    assert all(x["passed"] for x in c.values())


def test_corpus_reduce_exact_numbers():
    res = engine.run(suite_mod.load(SUITES / "cov_reduce"), "cpu", progress=False)
    tot = res.total()
    assert tot.branches == [8, 8] and tot.barriers == [2, 2] and tot.divergent == 0
    assert {c: v for c, v in tot.loops.items()} == {"zero": [0, 1], "one": [0, 1], "many": [1, 1],
                                                     "boundary": [1, 1]}
    assert res.tests[0].verdict.passed


def test_failing_test_is_reported_and_still_counted(tmp_path):
    d = tmp_path / "s"
    shutil.copytree(SUITES / "cov_features", d)
    (d / "cltc.toml").write_text('[build]\nsources = ["features.cu"]\n[[test]]\nname = "wrong"\n'
                                 'args = ["8", "1", "64"]\nstdout = "sum 0\\n"\n')
    res = engine.run(suite_mod.load(d), "cpu", progress=False)
    (t,) = res.tests
    assert not t.verdict.passed and "stdout differs" in t.verdict.reason
    assert t.collected and res.total().branches[0] > 0


def test_a_failing_test_fails_the_coverage_run_after_its_reports(run_cli, tmp_path):
    """Coverage of a suite whose test fails is not a pass: exit 2 naming the test and why, after
    the reports (which count what its run reached)."""
    d = tmp_path / "s"
    shutil.copytree(SUITES / "cov_features", d)
    (d / "cltc.toml").write_text('[build]\nsources = ["features.cu"]\n[[test]]\nname = "wrong"\n'
                                 'args = ["8", "1", "64"]\nstdout = "sum 0\\n"\n')
    r = run_cli("cltestcheck.cli", "coverage", "--suite", d, "--backend", "cpu", "--json", tmp_path / "c.json")
    assert r.returncode == 2 and "cltc coverage: test 'wrong' failed: stdout differs" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert json.loads((tmp_path / "c.json").read_text())["total"]["branches"]["covered"] > 0


def test_reports_from_cli(run_cli, tmp_path):
    out = tmp_path / "r"
    r = run_cli("cltestcheck.cli", "coverage", "--suite", SUITES / "cov_features", "--backend", "cpu",
                "--json", out / "c.json", "--lcov", out / "c.info", "--cobertura", out / "c.xml",
                "--html", out / "html", "-v")
    assert r.returncode == 0, r.stderr
    assert "Barrier divergence (1)" in r.stdout and "features.cu:42" in r.stdout
    # -v: under each test, what only it covered
    mixed = r.stdout[r.stdout.index("  mixed: passed"):]
    assert "\n      tests/suites/cov_features/features.cu:12: [classify] switch (v % 4): case 1\n" in mixed
    assert "features.cu:9: [classify] switch (v % 4): no case matched" in r.stdout
    doc = json.loads((out / "c.json").read_text())
    assert doc["total"]["branches"] == {"covered": 15, "total": 18, "percent": pytest.approx(83.333, 0.01)}
    info = (out / "c.info").read_text()
    assert info.count("end_of_record") == 1 and "BRF:21" in info and "BRH:18" in info
    assert "FNF:3" in info and "FNH:3" in info
    xml = ET.parse(out / "c.xml").getroot()
    assert xml.tag == "coverage" and int(xml.get("branches-valid")) == 21
    assert {m.get("name") for m in xml.iter("method")} == {"classify", "features", "scan_partial"}
    page = (out / "html" / "file0.html").read_text()
    assert "divergent: block (0,0,0) 40/64" in page and "no case matched ✗" in page


@pytest.mark.parametrize("gate,status,line", [
    (["--fail-under", "80"], 0, None),
    (["--fail-under", "branches=84"], 1, "cltc coverage: branches coverage 83.3% (15/18) is under --fail-under branches=84"),
    (["--fail-under", "branches=80", "--fail-under", "total=100"], 1, "total coverage"),
])
def test_fail_under_gates_exit_1_naming_what_fell_short(run_cli, gate, status, line):
    r = run_cli("cltestcheck.cli", "coverage", "--suite", SUITES / "cov_features", "--backend", "cpu", *gate, "-q")
    assert r.returncode == status, r.stderr
    assert (line in r.stderr) if line else "under --fail-under" not in r.stderr
    # -q: what is not covered, the divergent barrier and the total; no header, table or tests
    assert r.stdout.startswith("Not covered (3): ") and "Barrier divergence (1)" in r.stdout
    assert "cpu backend" not in r.stdout and "Tests:" not in r.stdout and r.stdout.endswith("85.7%\n")


@pytest.mark.parametrize("value,message", [("lots", "'lots' is not a percentage"), ("101", "not between 0 and 100"),
                                           ("lines=50", "unknown measure 'lines'")])
def test_a_bad_fail_under_is_a_clear_error(run_cli, value, message):
    r = run_cli("cltestcheck.cli", "coverage", "--suite", SUITES / "cov_features", "--backend", "cpu",
                "--fail-under", value)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("toml,needle", [
    ('[build]\nsources = ["features.cu"]\ncolour = 1\n[[test]]\n', "unknown key 'colour' in [build]"),
    ('[build]\nsources = ["nope.cu"]\n[[test]]\n', "'sources' names a file that does not exist: nope.cu"),
    ('[build]\nsources = ["features.cu"]\n[[test]]\nname = "a"\nfiles = ["in.txt"]\n',
     "test 'a': 'files' names a file that does not exist: in.txt"),
    ('[build]\nsources = ["features.cu"]\n[[test]]\nname = "a"\nstdot = "x"\n', "unknown key 'stdot'"),
    ('[build]\nsources = ["features.cu"]\n', "no tests"),
    ('[build\n', "not valid TOML"),
])
def test_suite_errors_name_the_key_or_file(run_cli, tmp_path, toml, needle):
    shutil.copy(SUITES / "cov_features" / "features.cu", tmp_path)
    (tmp_path / "cltc.toml").write_text(toml)
    r = run_cli("cltestcheck.cli", "coverage", "--suite", tmp_path, "--backend", "cpu",
                "--json", tmp_path / "out.json")
    assert r.returncode == 2 and needle in r.stderr and "cltc.toml" in r.stderr
    assert not (tmp_path / "out.json").exists()


def test_missing_suite_directory(run_cli, tmp_path):
    r = run_cli("cltestcheck.cli", "coverage", "--suite", tmp_path / "none")
    assert r.returncode == 2 and "no such suite directory" in r.stderr


def test_build_error_exits_2(run_cli, tmp_path):
    (tmp_path / "bad.cu").write_text("__global__ void k(int *a) { a[0] = ; }\nint main() {}\n")
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["bad.cu"]\n[[test]]\n')
    r = run_cli("cltestcheck.cli", "coverage", "--suite", tmp_path, "--backend", "cpu")
    assert r.returncode == 2 and "bad.cu:1" in r.stderr


CORPUS = sorted((CUDA / "corpus").glob("*.cu"))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_instrumented_corpus_prints_what_the_original_prints(path, tmp_path, plain_corpus):
    s = suite_mod.Suite(path.parent, [path], tests=[suite_mod.TestCase("t")])
    cpu = CpuBackend()
    plain = plain_corpus(path)   # (built once a session: cltc's build_plain, as test_cpu_backend runs it)
    planner = CoveragePlanner()
    inst, _, _ = build_instrumented(s, cpu, tmp_path, [planner])
    a = cpu.run(plain, timeout=120)
    b = cpu.run(inst, env={"CLTC_COV_LOG": str(tmp_path / "log.json")}, timeout=120)
    assert (a.returncode, a.stdout) == (b.returncode, b.stdout)
    flags = {r.id for r in logs.read_complete(tmp_path / "log.json", COVERAGE_LOG, "the log")["flag"]}
    # every kernel of the corpus runs, so every kernel's entry flag is set
    assert planner.table.functions and all(f.flag in flags for f in planner.table.functions
                                           if f.kind == "global")


HD_PROGRAM = """#include <cstdio>
__host__ __device__ int pick(int x) { return x > 0 ? 1 : 2; }
__global__ void k(int *out) { out[threadIdx.x] = pick(1); }
int main() {
  int *d, h[4];
  cudaMalloc((void **)&d, sizeof(h));
  k<<<1, 4>>>(d);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  printf("%d %d\\n", h[0], pick(-1));
  return 0;
}
"""


def test_host_device_function_counts_kernel_calls_only(tmp_path, request):
    """Regression (found by hirace selftest on nvcc): instrumented __host__ __device__ functions
    called a __device__-only helper and did not compile; on the host they must record nothing."""
    src = tmp_path / "hd.cu"
    src.write_text(HD_PROGRAM)
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["hd.cu"]\n\n[[test]]\nname = "t"\nstdout = "1 2\\n"\n')
    res = engine.run(suite_mod.load(tmp_path), "cpu", progress=False)
    arms = {i.label: i.covered for i in res.items() if i.category == "branch" and i.function == "pick"}
    assert len(arms) == 2 and sorted(arms.values()) == [False, True], arms   # kernel: x > 0 only
    request.getfixturevalue("nvcc")   # the rest needs nvcc: skipped without a CUDA toolkit
    from instrument.backends import BuildRequest
    from instrument.backends.gpu import GpuBackend
    from instrument.compile.pipeline import instrument_sources
    from runtime import include_dir
    planner = CoveragePlanner()
    instrumented = instrument_sources([src], tmp_path / "inst", [planner])
    srcs, incs = instrumented.sources, instrumented.include_dirs
    GpuBackend(arch="sm_80").compile_object(BuildRequest(srcs, tmp_path / "hd.o", list(incs) + [include_dir()],
                                                         planner.defines()))


def test_lcov_shows_the_lines_of_an_untaken_arm_as_missed(run_cli, tmp_path):
    """Lines inside an if/else arm count the tests that took that arm: an else no test takes is a
    missed line in lcov (and Cobertura), so line-based services (genhtml, diff-cover) see it."""
    (tmp_path / "arms.cu").write_text(
        "#include <cstdio>\n"
        "__global__ void k(int *a, int n) {\n"
        "  int i = threadIdx.x;\n"
        "  if (i < n) {\n"
        "    a[i] = 1;            // line 5: taken\n"
        "  } else {\n"
        "    a[i] = 2;            // line 7: never taken\n"
        "    a[i] += 3;           // line 8\n"
        "  }\n"
        "  if (i < n) {\n"
        "    if (n < 0) {         // line 11: an arm inside a taken arm\n"
        "      a[i] = 0;          // line 12: never taken\n"
        "    }\n"
        "  }\n"
        "}\n"
        "int main() { int *d; cudaMalloc(&d, 32 * sizeof(int)); k<<<1, 32>>>(d, 32); cudaDeviceSynchronize();\n"
        "  printf(\"ok\\n\"); return 0; }\n")
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["arms.cu"]\n[[test]]\nname = "t"\n')
    out = tmp_path / "out"
    out.mkdir()
    r = run_cli("cltestcheck.cli", "coverage", "--suite", tmp_path, "--lcov", out / "c.info",
                "--cobertura", out / "c.xml", "-q")
    assert r.returncode == 0, r.stderr
    da = dict(tuple(map(int, x[3:].split(","))) for x in (out / "c.info").read_text().splitlines()
              if x.startswith("DA:"))
    assert da[4] == 1 and da[5] == 1 and da[7] == 0 and da[8] == 0
    assert da[11] == 1 and da[12] == 0   # the inner arm decides, not the taken arm around it
    assert 6 not in da and 9 not in da   # lines of braces only are not lines of code
    xml = (out / "c.xml").read_text()
    assert 'number="7" hits="0"' in xml and 'number="5" hits="1"' in xml


def test_count_executions_gives_threads_not_tests(tmp_path):
    """--count-executions: each item counts the threads that passed it, over both tests (zeros:
    n=1, 32 threads of features, 64 of scan_partial; mixed: n=8, 32 and 64, v = i % 3)."""
    from cltestcheck.coverage import report_lcov
    res = engine.run(suite_mod.load(SUITES / "cov_features"), "cpu", progress=False, count_executions=True)
    runs = {(i.line, i.label): i.executions for i in res.items()}
    assert runs[(22, "global function features entered")] == 64
    assert runs[(37, "global function scan_partial entered")] == 128
    assert runs[(7, "device function classify entered")] == 9          # the threads with i < n
    assert runs[(30, "if (steps >= v): then")] == 9                    # one break per thread
    assert runs[(30, "if (steps >= v): else (absent)")] == 7           # sum of v over i < n
    assert runs[(40, "if (t >= n): then")] == 24                       # mixed: 64 - 40 threads leave
    # the same verdicts as the flags give, item by item
    assert {k: bool(v) for k, v in runs.items() if v is not None} == \
        {(i.line, i.label): i.covered for i in res.items() if i.category != "barrier"}
    info = report_lcov.render(res).splitlines()
    assert {"DA:22,64", "DA:30,16", "DA:40,128", "FNDA:9,classify"} <= set(info)
    assert "DA:42,104" in info            # the barrier: 64 + 40 arrivals (the others returned)
    assert [x.rsplit(",", 1)[1] for x in info if x.startswith("BRDA:30,")] == ["9", "7"]


SEEN_PROGRAM = """#include <cstdio>
__device__ int twice(int x) { return x > 100 ? 0 : 2 * x; }       // line 2: a device function
__global__ void k(int *out, int n) {
  int t = threadIdx.x;
  auto clamp = [](int v) { return v < 0 ? 0 : v; };              // line 5: a lambda in the kernel
  if (t >= n) return;                                              // line 6: early exit for t >= n
  int acc = 0;
  for (int i = 0; i < 4; ++i) {                                    // line 8
    if (i == 2 && t == 0) return;                                  // line 9: thread 0 leaves mid-loop
    acc += i;
  }
  switch (t % 3) {                                                 // line 12
    case 0: acc += 1; break;
    case 1: acc += 2; break;
    default: acc += 3;
  }
  __syncthreads();                                                 // line 17: threads t >= n left
  out[t] = clamp(twice(acc));
}
int main() {
  int *d, h[64];
  cudaMalloc((void **)&d, sizeof(h));
  cudaMemset(d, 0, sizeof(h));
  k<<<1, 64>>>(d, 48);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  printf("%d %d %d\\n", h[0], h[1], h[47]);
  return 0;
}
"""


def _seen_suite(tmp_path, program=SEEN_PROGRAM, stdout="0 12 18\\n"):
    (tmp_path / "seen.cu").write_text(program)
    (tmp_path / "cltc.toml").write_text(f'[build]\nsources = ["seen.cu"]\n\n[[test]]\nname = "t"\nstdout = "{stdout}"\n')
    return suite_mod.load(tmp_path)


def test_kernel_body_items_are_register_bits_written_when_threads_leave(tmp_path, request):
    """A kernel's own items note bits of its Seen (no flag traffic inside the kernel); those of a
    device function or a lambda (which cannot see the kernel's locals) keep the direct forms. The
    bits are written whichever way a thread leaves: the early return, a return inside the loop, the
    end; the barrier's flags too (a block some of whose threads left: the divergence record)."""
    from instrument.compile.pipeline import instrument_sources
    s = _seen_suite(tmp_path)
    planner = CoveragePlanner()
    inst = instrument_sources([tmp_path / "seen.cu"], tmp_path / "inst", [planner])
    text = inst.sources[0].read_text()
    lines = text.splitlines()
    kernel = next(i for i, line in enumerate(lines) if "__global__ void k" in line)
    assert "::cltc::cov::Seen<" in lines[kernel] and "cltc_seen_.note(0u)" in lines[kernel]
    body = "\n".join(lines[kernel:kernel + 16])
    for form in ("br_in(cltc_seen_, !!(t >= n)", "LoopIn<decltype(cltc_seen_)>", "sw_in(cltc_seen_,",
                 "CLTC_COV_SYNC_IN(cltc_seen_, 0u,"):
        assert form in body, form
    lam = next(line for line in lines if "auto clamp" in line)
    assert "::cltc::cov::br(!!(v < 0)" in lam and "cltc_seen_" not in lam
    dev = next(line for line in lines if "int twice" in line)
    assert "::cltc::cov::br(!!(x > 100)" in dev and "cltc_seen_" not in dev
    # on the cpu backend: exactly what the threads did
    res = engine.run(s, "cpu", progress=False)
    got = {(i.line, i.label.rsplit(": ", 1)[-1]): i.covered for i in res.items()
           if i.category in ("branch", "loop")}
    assert got == {
        (2, "true"): False, (2, "false"): True,                       # twice(): x <= 100 always
        (5, "true"): False, (5, "false"): True,                       # the lambda: v >= 0 always
        (6, "then"): True, (6, "else (absent)"): True,                # threads 48..63 leave
        (8, "body 0 times"): False, (8, "body once"): False,
        (8, "body more than once"): True, (8, "ended by its condition"): True,
        (9, "then"): True, (9, "else (absent)"): True,                # thread 0 leaves inside the loop
        (9, "true"): True, (9, "false"): True,
        (13, "case 0"): True, (14, "case 1"): True, (15, "default"): True,
    }, got
    barrier = [i for i in res.items() if i.category == "barrier"]
    assert [(i.line, i.covered) for i in barrier] == [(17, False)]   # not every thread arrived
    assert all(i.covered for i in res.items() if i.category == "function")
    # nvcc compiles both writers (a warp's lanes together from sm_80, each thread before)
    request.getfixturevalue("nvcc")
    from instrument.backends import BuildRequest
    from instrument.backends.gpu import GpuBackend
    from runtime import include_dir
    for arch in ("sm_75", "sm_90"):
        GpuBackend(arch=arch).compile_object(BuildRequest(inst.sources, tmp_path / f"seen_{arch}.o",
                                                          list(inst.include_dirs) + [include_dir()],
                                                          planner.defines()))


def test_barriers_reached_short_are_judged_per_instance(tmp_path, request):
    """A barrier instance that some threads of a block had left before is divergent, each instance on
    its own: in `halves` the arrivals of three rounds add up to whole blocks (64 + 32 + 32) though
    only the first round had every thread. Each divergent barrier is shown by its first block and that
    block's instance of fewest arrivals, as the GPU backend shows it (checked on an H100 against this
    suite: bench/results/coverage_overhead_h100_red)."""
    res = engine.run(suite_mod.load(SUITES / "cov_exits"), "cpu", progress=False)
    got = [(d["function"], d["line"], d["block"], d["arrived"], d["threads"], d["tests"], d["blocks_seen"])
           for d in res.divergences()]
    assert got == [
        ("staged", 16, [1, 0, 0], 30, 120, ["short"], 1), ("staged", 18, [1, 0, 0], 30, 120, ["short"], 1),
        ("warps_leave", 29, [0, 0, 0], 160, 256, ["short"], 3), ("warps_leave", 31, [0, 0, 0], 160, 256, ["short"], 3),
        ("halves", 58, [0, 0, 0], 32, 64, ["short", "whole"], 2), ("halves", 60, [0, 0, 0], 32, 64, ["short", "whole"], 2),
        ("meet", 64, [0, 0, 0], 48, 64, ["short"], 1)], got
    whole = {(i.function, i.line): sorted(i.tests) for i in res.items()
             if i.category == "barrier" and i.label.endswith("reached by every thread of a block")}
    assert whole == {("staged", 16): ["short", "whole"], ("staged", 18): ["short", "whole"],
                     ("warps_leave", 29): ["whole"], ("warps_leave", 31): ["whole"],
                     ("all_stay", 42): ["short", "whole"], ("all_stay", 44): ["short", "whole"],
                     ("halves", 58): ["short", "whole"], ("halves", 60): ["short", "whole"],
                     ("meet", 64): ["whole"]}, whole
    # nvcc compiles the GPU's forms: counts kept in registers until a thread leaves (the first
    # CLTC_COV_LATE_BARRIERS barriers of a kernel), judged at the barrier (the rest), both at once
    # (`many`: five barriers, a thread leaving before each, the first three kept in registers; cicc's
    # time grows with the exits times the barriers kept: nvcc -c took 38 s on ten barriers with the
    # default of eight kept, 5 s on these)
    request.getfixturevalue("nvcc")
    from instrument.backends import BuildRequest
    from instrument.backends.gpu import GpuBackend
    from instrument.compile.pipeline import instrument_sources
    from runtime import include_dir
    syncs = "".join(f"  if (t == {i}) return;\n  s[t] += {i};\n  __syncthreads();\n" for i in range(5))
    (tmp_path / "many.cu").write_text("__global__ void k(int *out) {\n  __shared__ int s[64];\n"
                                      "  int t = threadIdx.x;\n  s[t] = t;\n" + syncs + "  out[t] = s[t];\n}\n")
    builds = {"exits": (("sm_75", []), ("sm_90", ["CLTC_COV_LATE_BARRIERS=1"])),
              "many": (("sm_90", ["CLTC_COV_LATE_BARRIERS=3"]),)}
    for src in (SUITES / "cov_exits" / "exits.cu", tmp_path / "many.cu"):
        planner = CoveragePlanner()
        inst = instrument_sources([src], tmp_path / src.stem, [planner])
        for arch, extra in builds[src.stem]:
            GpuBackend(arch=arch).compile_object(BuildRequest(
                inst.sources, tmp_path / f"{src.stem}_{arch}_{len(extra)}.o",
                list(inst.include_dirs) + [include_dir()], planner.defines() + extra))


def test_host_only_sources_are_built_as_they_are(tmp_path, request):
    """A .cpp source (C++ that nvcc hands to the host compiler: no kernels, no launches) gets no
    runtime and no edits from any cltc tool: its device runtime cannot compile there (found on an H100
    in cuda-samples' simpleAtomicIntrinsics). A cudaDeviceReset there is named: the coverage of the
    launches before it is lost. The program's coverage is still exact, and nvcc builds both sources."""
    from cltestcheck.amplify.planner import SchedulePlanner
    from cltestcheck.mutate.planner import MutationPlanner
    from instrument.compile.pipeline import instrument_sources
    (tmp_path / "main.cu").write_text(
        "#include <cstdio>\nint reference(int n);\nvoid finish();\n"
        "__global__ void k(int *out, int n) {\n  int t = threadIdx.x;\n  if (t < n) out[t] = t;\n}\n"
        "int main() {\n  int *d, h[8];\n  cudaMalloc((void **)&d, sizeof(h));\n  k<<<1, 8>>>(d, 4);\n"
        "  cudaMemcpy(h, d, 4 * sizeof(int), cudaMemcpyDeviceToHost);\n"
        "  std::printf(\"%d %d\\n\", h[3], reference(4));\n  finish();\n  return 0;\n}\n")
    ref = "#include <cuda_runtime.h>\nint reference(int n) {\n  return n - 1;\n}\nvoid finish() { cudaDeviceReset(); }\n"
    (tmp_path / "ref.cpp").write_text(ref)
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["main.cu", "ref.cpp"]\n\n[[test]]\nname = "t"\n'
                                        'stdout = "3 3\\n"\n')
    res = engine.run(suite_mod.load(tmp_path), "cpu", progress=False)
    assert res.tests[0].verdict.passed, res.tests[0].verdict.reason
    assert {(i.line, i.label.rsplit(": ", 1)[-1]): i.covered for i in res.items() if i.category == "branch"} == \
        {(6, "then"): True, (6, "else (absent)"): True}
    assert any("ref.cpp:5" in w and "cudaDeviceReset in a host-only source" in w for w in res.warnings), res.warnings
    planners = (CoveragePlanner(), MutationPlanner(["relational"]), SchedulePlanner(gate=True))
    for planner in planners:
        inst = instrument_sources([tmp_path / "main.cu", tmp_path / "ref.cpp"], tmp_path / planner.tool, [planner])
        text = inst.sources[1].read_text()
        assert text.split("\n", 1)[1] == ref and text.startswith("#line 1 "), planner.tool   # as it is
    request.getfixturevalue("nvcc")
    from instrument.backends import BuildRequest
    from instrument.backends.gpu import GpuBackend
    from runtime import include_dir
    planner = CoveragePlanner()
    inst = instrument_sources([tmp_path / "main.cu", tmp_path / "ref.cpp"], tmp_path / "gpu", [planner])
    for src in inst.sources:
        GpuBackend(arch="sm_90").compile_object(BuildRequest([src], tmp_path / f"{src.stem}.o",
                                                             list(inst.include_dirs) + [include_dir()],
                                                             planner.defines()))


def test_kernel_items_beyond_the_register_bits_and_counting_builds_use_flags(tmp_path):
    """A kernel of more items than a Seen holds notes the first 64 bits in registers and sets the
    rest's flags directly; a counting build (--count-executions) uses no Seen at all. Either way the
    results are exact."""
    from instrument.compile.pipeline import instrument_sources
    from instrument.protocol import SEEN_BITS
    ifs = "".join(f"  if (t == {i}) acc += {i};\n" for i in range(40))
    program = ("#include <cstdio>\n__global__ void k(int *out) {\n  int t = threadIdx.x, acc = 0;\n" + ifs +
               "  out[t] = acc;\n}\nint main() { int *d, h[8]; cudaMalloc((void **)&d, sizeof(h));\n"
               "  k<<<1, 8>>>(d); cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);\n"
               "  printf(\"%d\\\\n\", h[7]); return 0; }\n")
    s = _seen_suite(tmp_path, program, "7\\n")
    planner = CoveragePlanner()
    text = instrument_sources([tmp_path / "seen.cu"], tmp_path / "inst", [planner]).sources[0].read_text()
    in_regs, direct = text.count("br_in(cltc_seen_"), text.count("::cltc::cov::br(")
    assert in_regs == (SEEN_BITS - 1) // 2 and in_regs + direct == 40   # bit 0: the kernel's entry
    res = engine.run(s, "cpu", progress=False)
    taken = sorted(i.line for i in res.items() if i.category == "branch" and i.label.endswith(": then") and i.covered)
    assert taken == list(range(4, 12))   # threads 0..7 take the ifs of lines 4..11
    assert sum(1 for i in res.items() if i.category == "branch" and i.covered) == 40 + 8
    counting = CoveragePlanner(count_executions=True)
    text = instrument_sources([tmp_path / "seen.cu"], tmp_path / "inst2", [counting]).sources[0].read_text()
    assert "cltc_seen_" not in text and text.count("::cltc::cov::br(") == 40
    # a kernel with inline assembly (an `exit` there skips destructors) keeps the direct forms too
    (tmp_path / "asm.cu").write_text(program.replace("  out[t] = acc;\n", '  if (acc < 0) asm volatile("exit;");\n  out[t] = acc;\n'))
    text = instrument_sources([tmp_path / "asm.cu"], tmp_path / "inst3", [CoveragePlanner()]).sources[0].read_text()
    assert "cltc_seen_" not in text and text.count("::cltc::cov::br(") == 41


ARCH_PROGRAM = """#include <cstdio>
#ifdef __CUDA_ARCH__
__device__ int twice(int v) {
  if (v > 2) return 2 * v;
  return v;
}
#endif
__global__ void k(int *out) {
#if __CUDA_ARCH__ >= 700
  int v = threadIdx.x;
  for (int i = 0; i < 2; ++i) v += twice(i);
  if (v > 100) out[threadIdx.x] = -1;
  else out[threadIdx.x] = v;
#endif
}
int main() {
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  k<<<1, 32>>>(d);
  int h[32];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d %d\\n", h[0], h[31]);
  return 0;
}
"""


def test_code_only_the_device_pass_compiles_is_counted(tmp_path, request):
    """A kernel body and a device function wholly under a condition on __CUDA_ARCH__ (the device pass's
    view: instrument/frontend/device_view.py): their items are counted, the cpu backend runs the body
    (the output), and the instrumented text compiles with nvcc."""
    src = tmp_path / "arch.cu"
    src.write_text(ARCH_PROGRAM)
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["arch.cu"]\n\n[[test]]\nname = "t"\nstdout = "1 32\\n"\n')
    res = engine.run(suite_mod.load(tmp_path), "cpu", progress=False)
    assert all(t.verdict.passed for t in res.tests), [t.verdict.reason for t in res.tests]
    branches = {(i.function, i.line, i.label): i.covered for i in res.items() if i.category == "branch"}
    assert branches == {("twice", 4, "if (v > 2): then"): False, ("twice", 4, "if (v > 2): else (absent)"): True,
                        ("k", 12, "if (v > 100): then"): False, ("k", 13, "if (v > 100): else"): True}, branches
    assert {i.function for i in res.items() if i.category == "function"} == {"twice", "k"}
    assert not res.warnings, res.warnings
    request.getfixturevalue("nvcc")   # the rest needs nvcc: skipped without a CUDA toolkit
    from instrument.backends import BuildRequest
    from instrument.backends.gpu import GpuBackend
    from instrument.compile.pipeline import instrument_sources
    from runtime import include_dir
    planner = CoveragePlanner()
    instrumented = instrument_sources([src], tmp_path / "inst", [planner], archs=(90,))
    assert len([i for i in planner.table.branches]) == 2
    GpuBackend(arch="sm_90").compile_object(BuildRequest(instrumented.sources, tmp_path / "arch.o",
                                                         list(instrumented.include_dirs) + [include_dir()],
                                                         planner.defines()))
