"""Races between operations the host does not order (hirace/host_streams.h), on the cpu backend: every
labelled program of tests/cuda/streams gives its verdict, naming both operations' lines (a line ending
in `// RACE` is one of the two racing operations: a launch or an API call); and programs with one
stream and no asynchronous API are built as before (no HIRACE_STREAMS, the same instrumented text).
`problems` judges a run of a labelled program on either backend: bench/hirace_gpu_corpus.py --set streams
runs them on a GPU with it."""
import json
import re
import signal
from pathlib import Path

import pytest

from hirace import report_github, report_json, report_junit, report_sarif, report_text, runner
from hirace.config import Config
from hirace.planner import HiracePlanner
from instrument.backends.cpu import CpuBackend
from instrument.compile.pipeline import instrument_sources

from conftest import CORPUS_OPT, CUDA

PROGRAMS = sorted((CUDA / "streams").glob("*.cu"))


def expected_lines(path: Path) -> set[int]:
    return {i for i, line in enumerate(path.read_text().splitlines(), 1) if line.rstrip().endswith("// RACE")}


def test_the_programs_cover_races_and_their_fixes():
    racy = [p for p in PROGRAMS if expected_lines(p)]
    assert 0 < len(racy) < len(PROGRAMS)
    assert all(len(expected_lines(p)) == 2 for p in racy)   # (a race names two operations)


# what some programs print, as they print it built plainly (the instrumentation changes nothing they compute)
PRINTS = {"graph_edge_ok": "2", "graph_no_edge_race": "2", "capture_join_ok": "cudaSuccess 10",
          "capture_unjoined": "cudaErrorStreamCaptureUnjoined no graph 0", "capture_late_join_race": "10",
          "async_alloc_event_ok": "6", "symbol_ok": "510", "launch_kernel_race": "10",
          "pinned_async_copy_ok": "1792 1792", "pinned_threads_ok": "0", "two_streams_halves_ok": "1 2"}


# what a gpu run says it did not check: a graph with nodes hirace does not follow (host_graphs_gpu.h, on stderr),
# and on a machine other than x86-64 Linux the host's own accesses of managed and pinned memory (host_access.h)
HOST_NOT_CHECKED = "the host's own reads and writes of managed and pinned memory are not checked"
GRAPHS_NOT_CHECKED = "its nodes not compared with other operations"
_API_CALL = re.compile(r"\bcuda\w+\s*\(|<<<")


def host_access_lines(path: Path) -> set[int]:
    """The labelled lines that are the host's own accesses (neither a launch nor a runtime call)."""
    text = path.read_text().splitlines()
    return {n for n in expected_lines(path) if not _API_CALL.search(text[n - 1])}


def uses_graphs(path: Path) -> bool:
    text = path.read_text()
    return "cudaGraph" in text or "cudaStreamBeginCapture" in text


def unchecked_said(path: Path, res) -> bool:
    """Whether the run said it did not check what this program's race needs (a host access; graphs)."""
    said = " ".join(res.warnings)
    return bool((host_access_lines(path) and HOST_NOT_CHECKED in said) or (uses_graphs(path) and GRAPHS_NOT_CHECKED in said))


def problems(path: Path, proc, res) -> list[str]:
    """What is wrong with a run of a labelled program (empty: every verdict right, both sides named in text,
    JSON and SARIF). A racy program whose race needs what the backend does not check (the gpu backend: host
    accesses, graphs) may report nothing only where the run says so."""
    if res is None or res.program_exit != 0:
        return [f"the program failed (exit {proc.returncode}): {proc.stderr[-1500:]}"]
    out = []
    if res.races or res.memory_errors:   # (the kernels themselves are race-free)
        out.append(f"{len(res.races)} races within kernels, {len(res.memory_errors)} memory errors")
    expect = expected_lines(path)
    if not expect or res.stream_races or not unchecked_said(path, res):
        # (what a racy program left to the device prints what its schedule gives: a GPU runs a graph's unordered
        # nodes as it likes, while hirace runs every operation it follows in the order the host issued it)
        if path.stem in PRINTS and proc.stdout.strip() != PRINTS[path.stem]:
            out.append(f"it printed {proc.stdout.strip()!r}, not {PRINTS[path.stem]!r}")
    if not expect:
        if res.stream_races:
            out.append("a false alarm: " + report_text.render(res)[-1500:])
        return out
    if not res.stream_races:
        if not unchecked_said(path, res):
            out.append("the race was missed, and the run did not say what it left unchecked")
        return out
    if len(res.stream_races) != 1:
        return out + [f"{len(res.stream_races)} races, not 1: " + report_text.render(res)[-1500:]]
    x = res.stream_races[0]
    if {x.first.line, x.second.line} != expect or not (x.first.file == x.second.file == str(path)):
        out.append(f"the race names {x.first.file}:{x.first.line} and {x.second.file}:{x.second.line}, not lines "
                   f"{sorted(expect)}")
    if not (x.buffer and x.size > 0 and "write" in (x.first.access, x.second.access)):
        out.append(f"buffer {x.buffer!r}, {x.size} bytes, {x.first.access}/{x.second.access}")
    if x.second.host and not (x.second.op in ("host read", "host write") and x.second.stream == "host" and
                              path.stem.startswith(("managed_", "pinned_")) and
                              "cudaStreamSynchronize(" in x.order_hint()):
        out.append(f"the host's side: {x.second.op} on {x.second.stream}, hint {x.order_hint()!r}")
    text = report_text.render(res)
    if "the host does not order" not in text or "Nothing orders them" not in text:
        out.append("the text report does not say it")
    d = report_json.to_dict(res)
    if not (d["summary"]["stream_races"] == 1 and d["stream_races"][0]["order_hint"] == x.order_hint() and
            {d["stream_races"][0]["first"]["line"], d["stream_races"][0]["second"]["line"]} == expect):
        out.append("the JSON report does not name both sides")
    doc = json.loads(report_sarif.render(res))
    items = [r for r in doc["runs"][0]["results"] if r["ruleId"] == report_sarif.STREAM_RULE]
    if len(items) != 1 or {items[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
                           items[0]["relatedLocations"][0]["physicalLocation"]["region"]["startLine"]} != expect:
        out.append("the SARIF report does not name both sides")
    if not res.findings():
        out.append("no findings (the exit status would be 0)")
    return out


@pytest.fixture(scope="module")
def run_program(tmp_path_factory):
    """Each program built and run once for this module's tests: (the process, its results)."""
    done = {}

    def run(path: Path):
        if path not in done:
            config = Config()
            built = runner.build([path], CpuBackend(), tmp_path_factory.mktemp(path.stem), config, opt=CORPUS_OPT)
            done[path] = runner.execute(built, config, timeout=120)
        return done[path]
    return run


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_verdict_and_both_operations(path, run_program):
    proc, res = run_program(path)
    assert not problems(path, proc, res)
    # the cpu backend checks everything these programs do: every racy one reports its race
    assert bool(res.stream_races) == bool(expected_lines(path)) and not unchecked_said(path, res)


def test_what_the_gpu_backend_leaves_unchecked_is_labelled():
    """The programs a run may pass without a race only where it says so: a host access (not watched on a machine
    other than x86-64 Linux), or a graph (one with nodes the gpu backend does not follow)."""
    excusable = sorted(p.stem for p in PROGRAMS if expected_lines(p) and (host_access_lines(p) or uses_graphs(p)))
    assert excusable == ["capture_late_join_race", "graph_no_edge_race", "graph_vs_kernel_race",
                         "managed_host_write_race", "managed_read_no_sync_race", "managed_var_race",
                         "managed_wrong_stream_race", "pinned_async_copy_race", "pinned_mapped_race",
                         "pinned_registered_race"]
    assert host_access_lines(CUDA / "streams" / "pinned_async_copy_race.cu") == {11}


def test_the_report_names_both_sides_and_what_would_order_them(run_program):
    path = CUDA / "streams" / "copy_vs_kernel_race.cu"
    _, res = run_program(path)
    x = res.stream_races[0]
    assert (x.first.op, x.first.kernel, x.first.access, x.first.stream) == ("kernel", "fill", "write", "compute")
    assert (x.second.op, x.second.access, x.second.stream) == ("cudaMemcpyAsync", "read", "transfer")
    assert (x.buffer, x.offset, x.size) == ("d", 0, 1024)
    assert "cudaStreamSynchronize(compute)" in x.order_hint()
    assert "cudaStreamWaitEvent(transfer, ev)" in x.order_hint()
    # every report carries it: SARIF (a rule of its own, both lines), JUnit (a failure), GitHub (an annotation)
    doc = json.loads(report_sarif.render(res))
    [item] = [r for r in doc["runs"][0]["results"] if r["ruleId"] == report_sarif.STREAM_RULE]
    assert item["locations"][0]["physicalLocation"]["region"]["startLine"] == x.second.line
    assert item["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == x.first.line
    assert doc["runs"][0]["invocations"][0]["exitCode"] == 1
    suite = report_junit.suite(res, "copy_vs_kernel_race", 0.0)
    failures = [f for c in suite.cases for f in c.failures]
    assert [f.type for f in failures] == [report_sarif.STREAM_RULE] and "cudaMemcpyAsync" in failures[0].message
    env = {"GITHUB_ACTIONS": "true"}
    notes = report_github.annotations(res, env)
    assert len(notes) == 1 and f"line={x.second.line}" in notes[0] and "unordered operations" in notes[0]
    assert "between unordered operations" in report_github.summary(res, 1, environ=env)


@pytest.mark.parametrize("name", ["gl_two_kernels_ordered.cu", "gl_same_index_write.cu", "memcpy_race.cu"])
def test_one_stream_programs_are_built_as_before(name, tmp_path):
    """No stream API, no managed or pinned memory: no HIRACE_STREAMS, and the accesses' proofs stay on (the same
    instrumented text)."""
    path = CUDA / "races" / name
    planner = HiracePlanner(Config(), lower_cpu=True)
    instrument_sources([path], tmp_path, [planner], [path.parent], [], lower_cpu=True)
    assert not planner.streams
    assert not any(d.startswith("HIRACE_STREAMS") for d in planner.defines())


def test_a_stream_program_follows_the_host_order(tmp_path):
    planner = HiracePlanner(Config(), lower_cpu=True)
    path = CUDA / "streams" / "two_streams_race.cu"
    instrument_sources([path], tmp_path, [planner], [path.parent], [], lower_cpu=True)
    assert planner.streams and "HIRACE_STREAMS=1" in planner.defines()
    # no managed or pinned memory in the whole program: the host's accesses have nothing to watch, and
    # host_access.h is left out of the build
    assert "HIRACE_HOST_ACCESS=0" in planner.defines()
    unit = HiracePlanner(Config(), lower_cpu=True, unit_mode=True)   # (hirace-cc: other units may allocate it)
    instrument_sources([path], tmp_path / "unit", [unit], [path.parent], [], lower_cpu=True)
    assert unit.streams and not any(d.startswith("HIRACE_HOST_ACCESS") for d in unit.defines())
    cpu = (tmp_path / path.name).read_text()
    assert "launch_site" not in cpu and "launch_stream" not in cpu   # (cudaemu's launcher says both)
    # on the gpu backend, unless asked (gpu_streams), the program is built as before and the report says the
    # relation is not checked
    plain = HiracePlanner(Config(), lower_cpu=False)
    plan = instrument_sources([path], tmp_path / "plain", [plain], [path.parent], [])
    assert not plain.streams and not any(d.startswith("HIRACE_STREAMS") for d in plain.defines())
    assert any("two_streams_race.cu:" in w and "not checked on the gpu backend unless asked (--gpu-streams"
               in w for w in plan.warnings), plan.warnings
    assert "launch_site" not in (tmp_path / "plain" / path.name).read_text()
    # asked: each launch says where it is, and its stream passes through launch_stream
    # (hirace/host_stream_launches.h)
    gpu = HiracePlanner(Config(gpu_streams=True), lower_cpu=False)
    instrument_sources([path], tmp_path / "gpu", [gpu], [path.parent], [])
    assert gpu.streams and "HIRACE_STREAMS=1" in gpu.defines()
    text = (tmp_path / "gpu" / path.name).read_text()
    assert text.count("::hirace::streams::launch_site(__FILE__, __LINE__), ::hirace::host::quiet_params(") == 2
    assert "::hirace::streams::launch_stream(s1)>>>(d, 1)" in text and "launch_stream(s2)>>>(d, 2)" in text
    # (so does the launch of the kernel's quiet version: it is an operation of that stream too)
    assert "fill__hirace_q<<<N / 64, 64, 0, ::hirace::streams::launch_stream(s1)>>>(d, 1)" in text


@pytest.mark.parametrize("name,said", [("two_streams_race.cu", ()), ("launch_kernel_race.cu", ()),
                                       ("managed_var_race.cu", ()), ("pinned_async_copy_race.cu", ()),
                                       ("graph_vs_kernel_race.cu", ()), ("capture_late_join_race.cu", ())])
def test_the_gpu_build_says_what_it_does_not_check(name, said, tmp_path):
    """Graphs and host accesses of managed and pinned memory are followed on both backends: no warning from the
    planner (host_graphs_gpu.h runs a graph's nodes on the gpu backend; host_access.h watches host accesses,
    built where the program has such memory, HIRACE_HOST_ACCESS=0 elsewhere, a __managed__ variable registered
    for it), and the gpu build of a graph program hooks the graph calls."""
    path = CUDA / "streams" / name
    gpu, cpu = HiracePlanner(Config(gpu_streams=True), lower_cpu=False), HiracePlanner(Config(), lower_cpu=True)
    plan_gpu = instrument_sources([path], tmp_path / "gpu", [gpu], [path.parent], [])
    plan_cpu = instrument_sources([path], tmp_path / "cpu", [cpu], [path.parent], [], lower_cpu=True)
    warned = " ".join(plan_gpu.warnings)
    assert [m for m in (HOST_NOT_CHECKED, GRAPHS_NOT_CHECKED) if m in warned] == list(said)
    assert not any(m in " ".join(plan_cpu.warnings) for m in (HOST_NOT_CHECKED, GRAPHS_NOT_CHECKED))
    host_memory = name in ("managed_var_race.cu", "pinned_async_copy_race.cu")
    for planner in (gpu, cpu):
        assert ("HIRACE_HOST_ACCESS=0" in planner.defines()) == (not host_memory)
    registered = "::hirace::access::ManagedVar" in (tmp_path / "gpu" / name).read_text()
    assert not any("graph" in w for w in plan_gpu.warnings)
    assert registered == (name == "managed_var_race.cu")
    if name == "launch_kernel_race.cu":   # (a launch through the runtime API: its stream argument passed through)
        text = (tmp_path / "gpu" / name).read_text()
        assert "::hirace::streams::launch_stream(s1))" in text


@pytest.mark.parametrize("name", ["launch_kernel_race.cu", "capture_late_join_race.cu", "symbol_async_race.cu",
                                  "graph_no_edge_race.cu", "host_callback_race.cu", "managed_var_race.cu",
                                  "pinned_registered_race.cu"])
def test_the_gpu_build_of_stream_programs_compiles(name, tmp_path, nvcc):
    """The relation, the launches' footprints in device memory, the capture-aware hooks, the graph runner
    (host_graphs_gpu.h) and the host-access watch compile for a GPU
    (bench/hirace_gpu_corpus.py --set streams runs every program on one). (One program a test: each is a
    long compile, which the workers of a parallel run share out.)"""
    import subprocess
    from hirace import runner
    from runtime import include_dir
    src = CUDA / "streams" / name
    ins = runner.instrument([src], tmp_path / src.stem, Config(gpu_streams=True))
    assert "HIRACE_STREAMS=1" in ins.planner.defines()
    r = subprocess.run([str(nvcc), "-std=c++17", "-arch=sm_90", "-c", f"-I{include_dir()}",
                        *[f"-I{d}" for d in ins.include_dirs], *[f"-D{d}" for d in ins.planner.defines()],
                        str(ins.sources[0]), "-o", str(tmp_path / f"{src.stem}.o")], capture_output=True, text=True)
    assert r.returncode == 0, f"{name}: " + r.stderr[-3000:]


def test_a_program_with_managed_memory_follows_the_host(tmp_path):
    """Managed or pinned memory alone (no stream API) is enough: the host's accesses of it are watched."""
    path = CUDA / "races" / "managed_race.cu"
    planner = HiracePlanner(Config(), lower_cpu=True)
    instrument_sources([path], tmp_path, [planner], [path.parent], [], lower_cpu=True)
    assert planner.streams and "HIRACE_STREAMS=1" in planner.defines()
    assert not any(d.startswith("HIRACE_HOST_ACCESS") for d in planner.defines())


@pytest.mark.parametrize("name,registered", [("managed_var_sync_ok.cu", True), ("pinned_mapped_race.cu", False)])
def test_a_managed_variable_or_pinned_memory_alone_is_watched(name, registered, tmp_path):
    """A __managed__ variable (no runtime call at all) or cudaHostAlloc: built with the relation, and the
    variable registered as memory whose host accesses are watched (hirace/host_access.h ManagedVar)."""
    path = CUDA / "streams" / name
    planner = HiracePlanner(Config(), lower_cpu=True)
    instrument_sources([path], tmp_path, [planner], [path.parent], [], lower_cpu=True)
    assert planner.streams
    text = "".join(f.read_text() for f in tmp_path.rglob("*.cu"))
    assert ("::hirace::access::ManagedVar hirace_managed_result(&result);" in text) == registered


_ROBUST = r"""
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
__global__ void fill(int *a, int v) { a[blockIdx.x * blockDim.x + threadIdx.x] = v; }
static sigjmp_buf back;
static void on_segv(int) { siglongjmp(back, 1); }
int main(int argc, char **argv) {
  int *m;
  cudaMallocManaged(&m, 256 * sizeof(int));
  fill<<<4, 64>>>(m, 1);
  cudaDeviceSynchronize();
  signal(SIGSEGV, on_segv);   // the program's own handler (after cudaemu's, which its first grid installs)
  fill<<<4, 64>>>(m, 7);
  int v = m[1];  // HOST
  int caught = 0;
  if (sigsetjmp(back, 1) == 0) {
    volatile int *bad = (int *)16;
    v += *bad;   // a fault of the program's own: its handler gets it
  } else {
    caught = 1;
  }
  if (argc > 1) {   // a real crash while pages are closed: still a crash
    signal(SIGSEGV, SIG_DFL);
    fill<<<4, 64>>>(m, 8);
    volatile int *bad = (int *)16;
    v += *bad;
  }
  cudaFree(m);   // (synchronises: nothing closed; the memory may come back from malloc)
  char *again = (char *)std::malloc(1 << 20);
  std::memset(again, 1, 1 << 20);
  std::printf("caught %d %d %d\n", caught, v, again[12345]);
  std::free(again);
  return caught ? 0 : 3;
}
"""


def test_the_programs_own_faults_still_reach_it_and_a_crash_stays_a_crash(tmp_path):
    src = tmp_path / "robust.cu"
    src.write_text(_ROBUST)
    host_line = next(i for i, ln in enumerate(_ROBUST.splitlines(), 1) if ln.endswith("// HOST"))
    config = Config()
    built = runner.build([src], CpuBackend(), tmp_path / "b", config)
    proc, res = runner.execute(built, config, timeout=120)
    assert res is not None and res.program_exit == 0 and "caught 1 7 1" in proc.stdout, proc.stderr[-2000:]
    [x] = res.stream_races
    assert x.second.host and x.second.line == host_line and x.second.access == "read" and x.first.kernel == "fill"
    # every report names the host's side: JSON, SARIF (its line the result's location), text
    d = report_json.to_dict(res)["stream_races"][0]
    assert (d["second"]["op"], d["second"]["stream"], d["second"]["line"]) == ("host read", "host", host_line)
    doc = json.loads(report_sarif.render(res))
    [item] = [r for r in doc["runs"][0]["results"] if r["ruleId"] == report_sarif.STREAM_RULE]
    assert item["locations"][0]["physicalLocation"]["region"]["startLine"] == host_line
    assert "read by the host against write by kernel 'fill'" in item["message"]["text"]
    assert f"read by the host at " in report_text.render(res) and f"robust.cu:{host_line}, before" in report_text.render(res)
    crashed, left = runner.execute(built, config, ["crash"], timeout=120)
    assert left is None and crashed.returncode == -signal.SIGSEGV, (crashed.returncode, crashed.stderr[-2000:])


def test_two_nodes_of_a_graph_name_their_lines_and_the_missing_edge(run_program):
    """hirace/host_graphs.h: each node is named by the line that added it; the hint is an edge."""
    path = CUDA / "streams" / "graph_no_edge_race.cu"
    _, res = run_program(path)
    [x] = res.stream_races
    assert (x.first.op, x.first.kernel, x.second.kernel) == ("kernel", "fill", "fill")
    assert x.first.stream == x.second.stream == "graph node on s"
    assert x.order_hint().startswith("an edge from the first node to the second")
    assert "a node of a graph launched on stream s" in report_text.render(res)
    # a graph against a kernel on another stream: the graph's stream is what to synchronise
    _, res = run_program(CUDA / "streams" / "graph_vs_kernel_race.cu")
    [x] = res.stream_races
    assert x.first.stream == "graph node on s1" and x.second.stream == "s2"
    assert "cudaStreamSynchronize(s1)" in x.order_hint() and "cudaStreamWaitEvent(s2, ev)" in x.order_hint()


def test_stream_ordered_allocation_and_free_are_operations(run_program):
    _, res = run_program(CUDA / "streams" / "async_alloc_race.cu")
    [x] = res.stream_races
    assert (x.first.op, x.second.op, x.buffer) == ("cudaMallocAsync", "kernel", "d")
    _, res = run_program(CUDA / "streams" / "async_alloc_free_race.cu")
    [x] = res.stream_races
    assert (x.first.op, x.second.op, x.second.access) == ("kernel", "cudaFreeAsync", "write")


def test_kernels_are_registered_by_address_only_where_a_call_names_one(tmp_path):
    """The cpu lowering registers kernels (cudaemu/graphs.h) only in a unit that launches one by its address."""
    for name, registered in (("graph_no_edge_race.cu", True), ("launch_kernel_race.cu", True),
                             ("two_streams_race.cu", False)):
        path = CUDA / "streams" / name
        out = tmp_path / path.stem
        instrument_sources([path], out, [HiracePlanner(Config(), lower_cpu=True)], [path.parent], [], lower_cpu=True)
        text = "".join(f.read_text() for f in out.rglob("*") if f.is_file() and f.suffix in (".cu", ".h"))
        assert ("::cudaemu::graphs::register_kernel(&fill" in text) == registered, name


_TILE = """#include <cuda_runtime.h>
__global__ void tile(const int *in, int *out) {
  __shared__ int t[64];
  t[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = t[63 - threadIdx.x];
}
int main() {
  int *a, *b;
  cudaMalloc(&a, 64 * sizeof(int));
  cudaMalloc(&b, 64 * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  tile<<<1, 64, 0, s>>>(a, b);
  cudaStreamSynchronize(s);
  return 0;
}
"""


@pytest.mark.parametrize("lower_cpu", [True, False], ids=["cpu", "gpu"])
def test_a_stream_program_keeps_its_shared_memory_and_parameter_proofs(lower_cpu, tmp_path):
    """A launch's footprint is made of its global accesses (stream_footprint.h): a parameter's quiet access notes
    its words there too (check.h quiet_footprint: the corpus's stream programs, whose kernels touch their own
    elements, find their races through it), so a program the relation follows keeps the parameters' proofs and
    those of declared shared memory."""
    from hirace.proofs.proof import Rule
    src = tmp_path / "tile.cu"
    src.write_text(_TILE)
    planner = HiracePlanner(Config(gpu_streams=True), lower_cpu=lower_cpu)
    instrument_sources([src], tmp_path / "out", [planner], [tmp_path], [], lower_cpu=lower_cpu)
    assert planner.streams
    site = {(s.line, s.variable): s for s in planner.sites}
    assert site[(6, "t")].proof == Rule.QUIET_SHARED_READ.title
    assert site[(4, "in")].proof == Rule.READONLY_PARAM.title
    assert site[(4, "t")].proof == Rule.OWN_SHARED_WORD.title and site[(6, "out")].proof == Rule.OWN_PARAM.title
