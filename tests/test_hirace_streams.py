"""Races between operations the host does not order (hirace/host_streams.h), on the cpu backend: every
labelled program of tests/cuda/streams gives its verdict, naming both operations' lines (a line ending
in `// RACE` is one of the two racing operations: a launch or an API call); and programs with one
stream and no asynchronous API are built as before (no HIRACE_STREAMS, the same instrumented text)."""
import json
import signal
from pathlib import Path

import pytest

from hirace import report_github, report_json, report_junit, report_sarif, report_text, runner
from hirace.config import Config
from hirace.planner import HiracePlanner
from instrument.backends.cpu import CpuBackend
from instrument.compile.pipeline import instrument_sources

from conftest import CUDA

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
          "pinned_async_copy_ok": "1792 1792"}


@pytest.fixture(scope="module")
def run_program(tmp_path_factory):
    """Each program built and run once for this module's tests: (the process, its results)."""
    done = {}

    def run(path: Path):
        if path not in done:
            config = Config()
            built = runner.build([path], CpuBackend(), tmp_path_factory.mktemp(path.stem), config)
            done[path] = runner.execute(built, config, timeout=120)
        return done[path]
    return run


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_verdict_and_both_operations(path, run_program):
    expect = expected_lines(path)
    proc, res = run_program(path)
    assert res is not None and res.program_exit == 0, proc.stderr[-2000:]
    if path.stem in PRINTS:
        assert proc.stdout.strip() == PRINTS[path.stem]
    assert not res.races and not res.memory_errors   # (the kernels themselves are race-free)
    if not expect:
        assert not res.stream_races, report_text.render(res)
        return
    assert len(res.stream_races) == 1, report_text.render(res)
    x = res.stream_races[0]
    assert {x.first.line, x.second.line} == expect
    assert x.first.file == x.second.file == str(path)
    assert x.buffer and x.size > 0 and "write" in (x.first.access, x.second.access)
    if x.second.host:   # (a host access of managed or pinned memory: hirace/host_access.h)
        assert x.second.op in ("host read", "host write") and x.second.stream == "host"
        assert path.stem.startswith(("managed_", "pinned_")) and "cudaStreamSynchronize(" in x.order_hint()
    text = report_text.render(res)
    assert "the host does not order" in text and "Nothing orders them" in text
    d = report_json.to_dict(res)
    assert d["summary"]["stream_races"] == 1 and d["stream_races"][0]["order_hint"] == x.order_hint()
    assert res.findings()


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


def test_a_stream_program_checks_every_access_whole(tmp_path):
    planner = HiracePlanner(Config(), lower_cpu=True)
    path = CUDA / "streams" / "two_streams_race.cu"
    instrument_sources([path], tmp_path, [planner], [path.parent], [], lower_cpu=True)
    assert planner.streams and "HIRACE_STREAMS=1" in planner.defines()
    # and on a GPU build nothing changes yet (the relation is the cpu backend's)
    gpu = HiracePlanner(Config(), lower_cpu=False)
    instrument_sources([path], tmp_path / "gpu", [gpu], [path.parent], [])
    assert not gpu.streams


def test_a_program_with_managed_memory_follows_the_host(tmp_path):
    """Managed or pinned memory alone (no stream API) is enough: the host's accesses of it are watched."""
    path = CUDA / "races" / "managed_race.cu"
    planner = HiracePlanner(Config(), lower_cpu=True)
    instrument_sources([path], tmp_path, [planner], [path.parent], [], lower_cpu=True)
    assert planner.streams and "HIRACE_STREAMS=1" in planner.defines()


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
