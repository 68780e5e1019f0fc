"""cltc coverage of projects as they are built: the CMake project and the Makefile project of our own
(tests/projects/) built through the compiler launcher cltc-cc on the cpu backend, their own test
commands run under `cltc coverage -- COMMAND`, every process's counters merged."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, PROJECTS, build_cmake_app, build_make_app, needs_project_tools, project_env, run_in

CLTC_CC = BIN / "cltc-cc"
CLTC = BIN / "cltc"

needs_tools = needs_project_tools


def _env(**more) -> dict:
    return project_env(("HIRACE_", "CLTC_"), **more)


CPU = _env(CLTC_BACKEND="cpu")


def _run(cmd, cwd, env=CPU, timeout=300) -> subprocess.CompletedProcess:
    return run_in(cmd, cwd, env, timeout)


@pytest.fixture(scope="module")
def cmake_build(tmp_path_factory) -> Path:
    """tests/projects/cmake_app configured with cltc's launchers and built on the cpu backend."""
    return build_cmake_app(tmp_path_factory.mktemp("cltc_cmake_app") / "build", CLTC_CC, CPU,
                           ["-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"])


@pytest.fixture(scope="module")
def make_build(tmp_path_factory) -> Path:
    """tests/projects/make_app copied and built with make NVCC="cltc-cc nvcc" on the cpu backend."""
    return build_make_app(tmp_path_factory.mktemp("cltc_make_app") / "make_app", "cltc-cc", CPU)


def _items(report: dict, file: str) -> dict[tuple[int, str], bool]:
    return {(i["line"], i["label"]): i["covered"] for i in report["items"] if i["file"] == file}


@needs_tools
def test_ctest_under_cltc_coverage_merges_both_units_and_both_processes(cmake_build, tmp_path):
    """Run from the project's root: the report names its files relative to it. scale's test covers the
    scale unit, histogram's the histogram unit; each process's log holds both units' tables (one static
    library), and the merge counts each item once."""
    root = PROJECTS / "cmake_app"
    res = _run([CLTC, "coverage", "--json", tmp_path / "c.json", "--lcov", tmp_path / "c.info", "--",
                "ctest", "--test-dir", cmake_build], root)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "100% tests passed, 0 tests failed out of 2" in res.stdout   # the tests' own output and verdicts
    assert "ctest --test-dir" in res.stdout and "2 instrumented processes" in res.stdout
    report = json.loads((tmp_path / "c.json").read_text())
    assert report["command"].startswith("ctest") and report["backend"] == "cpu"
    tests = sorted(t["test"].split(" (pid")[0] for t in report["tests"])
    assert tests == [f"{cmake_build}/app histogram 300", f"{cmake_build}/app scale 300"]
    hist, scale = _items(report, "lib/histogram.cu"), _items(report, "lib/scale.cu")
    assert hist[(7, "if (threadIdx.x < BINS): then")] and hist[(7, "if (threadIdx.x < BINS): else (absent)")]
    assert hist[(10, "__syncthreads() reached by every thread of a block")]
    assert scale[(6, "if (i < n): then")] and scale[(6, "if (i < n): else (absent)")]
    # each item once, though both processes' logs (and both units' tables in each) carried it
    assert len(report["items"]) == len({(i["file"], i["line"], i["label"]) for i in report["items"]})
    by_test = {t["test"].split(" (pid")[0].split()[-2]: t for t in report["tests"]}
    assert by_test["scale"]["unique"] == 2 and by_test["histogram"]["unique"] == 7   # disjoint: both count
    info = (tmp_path / "c.info").read_text()
    assert "SF:lib/histogram.cu\n" in info and "SF:lib/scale.cu\n" in info   # relative to the project's root
    assert "FNDA:1,histogram" in info   # one of the two processes ran it


@needs_tools
def test_what_a_command_did_not_reach_is_not_covered_and_a_gate_fails(cmake_build, tmp_path):
    """Two processes of one program with inputs that cover different arms: the merge has both; the
    histogram unit, which neither ran, is in the report (its table is in the program) and not covered."""
    res = _run([CLTC, "coverage", "--json", tmp_path / "s.json", "--fail-under", "90", "--",
                "sh", "-c", f"{cmake_build}/app scale 128 && {cmake_build}/app scale 300"], PROJECTS / "cmake_app")
    assert res.returncode == 1, res.stdout + res.stderr   # the gate, not a failure
    assert "cltc coverage: total coverage" in res.stderr and "--fail-under 90" in res.stderr, res.stderr
    report = json.loads((tmp_path / "s.json").read_text())
    scale, hist = _items(report, "lib/scale.cu"), _items(report, "lib/histogram.cu")
    assert scale[(6, "if (i < n): then")] and scale[(6, "if (i < n): else (absent)")]
    assert hist and not any(hist.values())
    contributions = {t["test"].split(" (pid")[0].split()[-1]: t for t in report["tests"]}
    assert contributions["128"]["covered"] == 1 and contributions["300"]["covered"] == 2
    assert "Not covered" in res.stdout and "lib/histogram.cu:7: [histogram]" in res.stdout


@needs_tools
def test_two_programs_sharing_a_unit_merge(cmake_build, tmp_path):
    """A second program linked against the project's static library (its units' objects as built):
    the units' items are one item whichever program ran them."""
    (tmp_path / "other.cpp").write_text(
        '#include <cuda_runtime.h>\n#include "vecops.h"\n'
        "int main() { int *d; cudaMalloc(&d, 128 * sizeof(int)); scale_on_device(d, 128); return 0; }\n")
    inc = PROJECTS / "cmake_app" / "include"
    assert _run([CLTC_CC, "g++", f"-I{inc}", "-c", "other.cpp", "-o", "other.o"], tmp_path).returncode == 0
    linked = _run([CLTC_CC, "g++", "other.o", cmake_build / "libvecops.a", "-o", "other"], tmp_path)
    assert linked.returncode == 0, linked.stderr
    res = _run([CLTC, "coverage", "--json", tmp_path / "o.json", "--",
                "sh", "-c", f"./other && {cmake_build}/app scale 300 && {cmake_build}/app histogram 300"], tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    report = json.loads((tmp_path / "o.json").read_text())
    scale_file = str(PROJECTS / "cmake_app" / "lib" / "scale.cu")   # (outside the current directory: absolute)
    assert {t["test"].split(" (pid")[0] for t in report["tests"]} == {
        "./other", f"{cmake_build}/app scale 300", f"{cmake_build}/app histogram 300"}
    apply = [i for i in report["items"] if i["file"] == scale_file]
    assert [(i["label"], sorted(t.split(" (pid")[0] for t in i["tests"])) for i in apply if i["category"] == "branch"] == [
        ("if (i < n): then", ["./other", f"{cmake_build}/app scale 300"]),
        ("if (i < n): else (absent)", [f"{cmake_build}/app scale 300"])]


@needs_tools
def test_make_run_under_cltc_coverage(make_build, tmp_path):
    """`make run` starts two programs: stencil (two units: its own and the library's boundary) and
    transpose (compiled and linked in one line); transpose's tile always fits, so its bounds tests
    never fail."""
    res = _run([CLTC, "coverage", "--lcov", tmp_path / "m.info", "--cobertura", tmp_path / "m.xml",
                "--html", tmp_path / "html", "--json", tmp_path / "m.json", "--", "make", "run"], make_build)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "stencil: sum 7979.00" in res.stdout and "transpose: sum 3636864" in res.stdout   # the programs' own output
    report = json.loads((tmp_path / "m.json").read_text())
    stencil_process = next(t for t in report["tests"] if t["test"].startswith("./stencil 1000"))
    files = {i["file"] for i in report["items"] if any(x.startswith("./stencil") for x in i["tests"])}
    assert files == {"stencil.cu", "boundary.cu"} and stencil_process["covered"] == 17
    transpose = _items(report, "transpose.cu")
    assert transpose[(10, "operand `x < n`: true")] and not transpose[(10, "operand `x < n`: false")]
    assert "transpose.cu:10: [transpose] operand `x < n`: false" in res.stdout
    info = (tmp_path / "m.info").read_text()
    assert [line for line in info.splitlines() if line.startswith("SF:")] == \
        ["SF:boundary.cu", "SF:stencil.cu", "SF:transpose.cu"]
    assert 'filename="transpose.cu"' in (tmp_path / "m.xml").read_text()
    assert (tmp_path / "html" / "index.html").is_file()


@needs_tools
def test_a_failing_test_command_is_a_failure_with_its_reports(make_build, tmp_path):
    res = _run([CLTC, "coverage", "--json", tmp_path / "f.json", "--", "sh", "-c", "./transpose 64; exit 3"],
               make_build)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "the command exited with status 3" in res.stderr and "Traceback" not in res.stderr
    assert json.loads((tmp_path / "f.json").read_text())["tests"]   # what ran is reported


@needs_tools
def test_a_suite_takes_its_sources_flags_from_a_compilation_database(cmake_build, tmp_path):
    """-p BUILD: a cltc.toml suite over the project's own files, whose -I and -D (the library's include
    directory, SCALE_FACTOR, BINS) come from CMake's compile_commands.json, as clang tools read it."""
    lib = PROJECTS / "cmake_app"
    (tmp_path / "cltc.toml").write_text(
        f'[build]\nsources = ["{lib}/lib/scale.cu", "{lib}/lib/histogram.cu", "{lib}/src/main.cpp"]\n'
        '[[test]]\nname = "scale"\nargs = ["scale", "300"]\nstdout = "scale: sum 134550\\n"\n'
        '[[test]]\nname = "histogram"\nargs = ["histogram", "300"]\n')
    plain = _run([CLTC, "coverage", "--backend", "cpu", "-q"], tmp_path)
    assert plain.returncode == 2 and "'vecops.h' file not found" in plain.stderr
    res = _run([CLTC, "coverage", "--backend", "cpu", "-q", "-p", cmake_build, "--json", "p.json"], tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    report = json.loads((tmp_path / "p.json").read_text())
    assert report["total"]["branches"]["covered"] == report["total"]["branches"]["total"] == 8
    (tmp_path / "other.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["other.cu"]\n[[test]]\nname = "t"\n')
    missing = _run([CLTC, "coverage", "--backend", "cpu", "-q", "-p", cmake_build], tmp_path)
    assert missing.returncode == 2 and "other.cu: no CUDA entry in" in missing.stderr, missing.stderr


def test_a_command_that_runs_nothing_instrumented_is_not_a_pass(tmp_path):
    res = _run([CLTC, "coverage", "--", "true"], tmp_path)
    assert res.returncode == 2
    assert "no instrumented unit ran under the command" in res.stderr and "cltc-cc" in res.stderr
    failing = _run([CLTC, "coverage", "--", "sh", "-c", "exit 4"], tmp_path)
    assert failing.returncode == 2 and "exited with status 4" in failing.stderr
    missing = _run([CLTC, "coverage", "--", "./no-such-program"], tmp_path)
    assert missing.returncode == 2 and "no such command" in missing.stderr and "Traceback" not in missing.stderr
    with_db = _run([CLTC, "coverage", "-p", "build", "--", "true"], tmp_path)
    assert with_db.returncode == 2 and "through cltc-cc" in with_db.stderr
    assert not list(tmp_path.iterdir())


@needs_tools
def test_a_unit_built_by_the_launcher_writes_its_own_log_per_process(tmp_path):
    """The runtime's side without a build system: two units, each numbering its items from 0; a log
    of its own per process in CLTC_COV_LOG_DIR (never over another's), read back with the units'
    tables; a forked child that launches nothing writes none."""
    (tmp_path / "a.cu").write_text(
        "#include <cstdio>\n#include <sys/wait.h>\n#include <unistd.h>\n"
        "__global__ void ka(int *a, int n) { for (int j = 0; j < n; ++j) a[threadIdx.x] += j; }\n"
        "void run_b(int *d);\n"
        "int main() { int *d; cudaMalloc(&d, 256); cudaMemset(d, 0, 256); ka<<<1, 8>>>(d, 3);\n"
        "  cudaDeviceSynchronize(); run_b(d);\n"
        "  pid_t c = fork(); if (c == 0) return 0; int st; waitpid(c, &st, 0); printf(\"ok\\n\"); return 0; }\n"
        "// no line break at the end")
    (tmp_path / "b.cu").write_text(
        "__global__ void kb(int *a) { if (threadIdx.x == 0) a[0] = 1; }\n"
        "void run_b(int *d) { kb<<<1, 4>>>(d); cudaDeviceSynchronize(); }\n")
    for unit in ("a", "b"):
        built = _run([CLTC_CC, "nvcc", "-c", f"{unit}.cu", "-o", f"{unit}.o"], tmp_path)
        assert built.returncode == 0, built.stderr
    assert _run([CLTC_CC, "nvcc", "a.o", "b.o", "-o", "app"], tmp_path).returncode == 0
    logs = tmp_path / "logs"
    logs.mkdir()
    for _ in range(2):
        ran = _run(["./app"], tmp_path, env=dict(CPU, CLTC_COV_LOG_DIR=str(logs)))
        assert (ran.returncode, ran.stdout, ran.stderr) == (0, "ok\n", "")
    written = sorted(logs.iterdir())
    assert len(written) == 2 and all(p.name.startswith("cltc-cov-") and p.suffix == ".jsonl" for p in written)
    from cltestcheck.coverage import processes
    first = processes.read_log(written[0], tmp_path)
    assert first.units == 2 and first.name.startswith("./app (pid ")
    table, tests = processes.merge([first, processes.read_log(written[1], tmp_path)])
    assert sorted(f.name for f in table.functions) == ["ka", "kb"]   # each once, from two processes
    kb = next(b for b in table.branches if b.file.endswith("b.cu"))
    assert [a.flag in tests[0].flags for a in kb.arms] == [True, True]
    loop = table.loops[0]
    assert [loop.flag(c) in tests[1].flags for c in ("zero", "one", "many", "boundary")] == [False, False, True, True]


def test_merge_identifies_items_by_place_not_by_id():
    """Two processes whose units registered in different orders (ids differ), one holding a header's
    item twice (two units include it): each item once in the merge, each process's flags on it."""
    from cltestcheck.coverage.processes import ProcessLog, merge
    from cltestcheck.coverage.results import TestCoverage
    from cltestcheck.coverage.sites import Arm, BarrierSite, BranchSite, FunctionSite, SiteTable
    from cltestcheck.judge import Verdict

    def unit(file, base, barrier):
        return ([FunctionSite("k", "global", file, 1, base)],
                [BranchSite("if", file, 2, 3, "k", "c", [Arm("then", base + 1, 2), Arm("else", base + 2, 2)])],
                [BarrierSite(barrier, "__syncthreads", file, 4, 3, "k")])

    def process(name, units, flags, barrier_flags):
        t = SiteTable(0)
        for f, b, bar in units:
            t.functions += f
            t.branches += b
            t.barriers += bar
            t.flags += 3
        return ProcessLog(name, "cpu", t, len(units), TestCoverage(name, Verdict(True), 0, True, set(flags),
                                                                   barrier_flags=set(barrier_flags)), 1)
    p1 = process("p1", [unit("/p/a.cu", 0, 0), unit("/p/h.cuh", 3, 1), unit("/p/h.cuh", 6, 2)], {0, 1, 4, 8}, {3})
    p2 = process("p2", [unit("/p/h.cuh", 0, 0), unit("/p/a.cu", 3, 1)], {2, 5}, {2, 3})
    table, (t1, t2) = merge([p1, p2])
    assert [(f.file, f.flag) for f in table.functions] == [("/p/a.cu", 0), ("/p/h.cuh", 1)]
    assert len(table.branches) == 2 and len(table.barriers) == 2
    a_then, a_else = (a.flag for a in table.branches[0].arms)
    h_then, h_else = (a.flag for a in table.branches[1].arms)
    assert t1.flags == {0, a_then, h_then, h_else} and t2.flags == {h_else, a_else}
    assert t1.barrier_flags == {3} and t2.barrier_flags == {0, 1}   # (barriers: a.cu's 0, h.cuh's 1)
