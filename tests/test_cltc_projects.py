"""cltc of projects as they are built: the CMake project and the Makefile project of our own
(tests/projects/) built through the compiler launcher cltc-cc on the cpu backend, in each build mode
(CLTC_MODE: coverage, mutate, amplify), their own test commands run under `cltc coverage|mutate|amplify
-- COMMAND`: every process's counters merged, each mutant judged by the command's exit status, the
command run under every block schedule."""
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


@pytest.fixture(scope="module")
def mutant_make_build(tmp_path_factory) -> Path:
    """tests/projects/make_app built with make NVCC="cltc-cc nvcc" and CLTC_MODE=mutate (mutant schemata)."""
    return build_make_app(tmp_path_factory.mktemp("cltc_make_mut") / "make_app", "cltc-cc", dict(CPU, CLTC_MODE="mutate"))


@pytest.fixture(scope="module")
def mutant_cmake_build(tmp_path_factory) -> Path:
    """tests/projects/cmake_app configured with cltc's launchers and built with CLTC_MODE=mutate."""
    return build_cmake_app(tmp_path_factory.mktemp("cltc_cmake_mut") / "build", CLTC_CC, dict(CPU, CLTC_MODE="mutate"))


@pytest.fixture(scope="module")
def gated_make_build(tmp_path_factory) -> Path:
    """tests/projects/make_app built with make NVCC="cltc-cc nvcc" and CLTC_MODE=amplify (the schedule gate)."""
    return build_make_app(tmp_path_factory.mktemp("cltc_make_amp") / "make_app", "cltc-cc", dict(CPU, CLTC_MODE="amplify"))


APP = "tests/projects/cmake_app"   # the project's files as reports name them: from the git work tree's root


def _items(report: dict, file: str) -> dict[tuple[int, str], bool]:
    return {(i["line"], i["label"]): i["covered"] for i in report["items"] if i["file"] == file}


@needs_tools
def test_ctest_under_cltc_coverage_merges_both_units_and_both_processes(cmake_build, tmp_path):
    """The report names files relative to the git work tree holding the current directory (this project's
    is ours: tests/projects/cmake_app/...). scale's test covers the
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
    hist, scale = _items(report, f"{APP}/lib/histogram.cu"), _items(report, f"{APP}/lib/scale.cu")
    assert hist[(7, "if (threadIdx.x < BINS): then")] and hist[(7, "if (threadIdx.x < BINS): else (absent)")]
    assert hist[(10, "__syncthreads() reached by every thread of a block")]
    assert scale[(6, "if (i < n): then")] and scale[(6, "if (i < n): else (absent)")]
    # each item once, though both processes' logs (and both units' tables in each) carried it
    assert len(report["items"]) == len({(i["file"], i["line"], i["label"]) for i in report["items"]})
    by_test = {t["test"].split(" (pid")[0].split()[-2]: t for t in report["tests"]}
    assert by_test["scale"]["unique"] == 2 and by_test["histogram"]["unique"] == 7   # disjoint: both count
    info = (tmp_path / "c.info").read_text()
    assert f"SF:{APP}/lib/histogram.cu\n" in info and f"SF:{APP}/lib/scale.cu\n" in info   # relative to the root
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
    scale, hist = _items(report, f"{APP}/lib/scale.cu"), _items(report, f"{APP}/lib/histogram.cu")
    assert scale[(6, "if (i < n): then")] and scale[(6, "if (i < n): else (absent)")]
    assert hist and not any(hist.values())
    contributions = {t["test"].split(" (pid")[0].split()[-1]: t for t in report["tests"]}
    assert contributions["128"]["covered"] == 1 and contributions["300"]["covered"] == 2
    assert "Not covered" in res.stdout and f"{APP}/lib/histogram.cu:7: [histogram]" in res.stdout


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


# ---------------------------------------------------------------- cltc mutate -- COMMAND

def _verdicts(report: dict, file: str) -> dict[str, str]:
    """A mutation report's mutants of one file: 'line:column operator replacement' -> status."""
    return {f"{m['line']}:{m['col']} {m['operator']} {m['replacement']}": m["status"] for m in report["mutants"]
            if ("/" + m["file"]).endswith("/" + file)}   # (named from the root: the build's directory)


@needs_tools
def test_make_check_under_cltc_mutate_judges_each_mutant_by_the_commands_status(mutant_make_build, tmp_path):
    """`make check` checks stencil's sum (stencil and the boundary library's units) and compact's order.
    Each relational mutant the two processes reached runs the command once, two commands at a time; the
    command's status (make's 2: a check failed) kills it, the reference's (0) lets it survive."""
    res = _run([CLTC, "mutate", "--operators", "relational", "-j", "2", "--json", tmp_path / "m.json",
                "--stryker", tmp_path / "s.json", "--results", tmp_path / "r.csv", "--", "make", "check"],
               mutant_make_build)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "2 instrumented process(es) reached 10 mutation sites, 50 of 50 mutants; judging 50" in res.stderr
    report = json.loads((tmp_path / "m.json").read_text())
    assert report["command"] == "make check" and report["backend"] == "cpu"
    # boundary's threads 0 and 1 fix one end each: a mutant changes the output only where no thread fixes
    # an end (`<` for thread 0's, `>` for thread 1's); which threads fix it, or how many, does not matter
    assert _verdicts(report, "boundary.cu") == {
        "5:19 relational <": "killed", "5:19 relational <=": "survived", "5:19 relational >": "survived",
        "5:19 relational >=": "survived", "5:19 relational !=": "survived",
        "6:19 relational <": "survived", "6:19 relational <=": "survived", "6:19 relational >": "killed",
        "6:19 relational >=": "survived", "6:19 relational !=": "survived"}
    # compact's grid covers the array exactly (i <= n, i != n change nothing) and its data are not negative
    assert _verdicts(report, "compact.cu") == {
        "12:9 relational <=": "survived", "12:9 relational >": "killed", "12:9 relational >=": "killed",
        "12:9 relational ==": "killed", "12:9 relational !=": "survived",
        "12:22 relational <": "killed", "12:22 relational <=": "killed", "12:22 relational >": "survived",
        "12:22 relational >=": "killed", "12:22 relational ==": "killed"}
    assert {m["status"] for m in report["mutants"]} == {"killed", "survived"}   # stencil's too: none failed
    killed = next(m for m in report["mutants"] if m["selector"].endswith("compact.cu:12:9:relational:>"))
    assert killed["reason"] == "the command exited with status 2, the reference with 0 (a test failed)"
    assert killed["covered_by"] == ["./compact 1024"] and killed["killed_by"] == ["make check"]
    assert "CLTC_MUTANT='compact.cu:12:9:relational:<='" in res.stdout   # (a survivor: how to run it by hand)
    stryker = json.loads((tmp_path / "s.json").read_text())
    assert {m["status"] for f in stryker["files"].values() for m in f["mutants"]} == {"Killed", "Survived"}
    # the journal: the same campaign again judges nothing, and gives the same verdicts
    again = _run([CLTC, "mutate", "--operators", "relational", "--json", tmp_path / "m2.json", "--results",
                  tmp_path / "r.csv", "--", "make", "check"], mutant_make_build)
    assert again.returncode == 0 and "50 of them already judged" in again.stderr and "judging 0" in again.stderr
    assert json.loads((tmp_path / "m2.json").read_text())["summary"] == report["summary"]
    # by hand: the stable id picks the mutant in whichever program holds its unit
    by_hand = _run(["./compact", "1024"], mutant_make_build, env=dict(CPU, CLTC_MUTANT="compact.cu:12:9:relational:>"))
    assert (by_hand.returncode, by_hand.stdout) == (1, "compact: 0 kept, not the nonzero elements in index order\n")
    assert _run(["./compact", "1024"], mutant_make_build, env=dict(CPU, CLTC_MUTANT="7")).returncode == 0   # no number


@needs_tools
def test_a_scope_judges_only_its_mutants_under_a_command_and_junit_names_them(mutant_make_build, tmp_path):
    """`--mutate FILE:LINE` and `--kernel` with a command: only compact's line 12 of the 50 relational mutants
    the processes reached is judged (its survivors as in the whole campaign), a JUnit case for each."""
    import xml.etree.ElementTree as ET
    res = _run([CLTC, "mutate", "--operators", "relational", "--mutate", "compact.cu:12", "--kernel", "compact",
                "--junit", tmp_path / "m.xml", "--", "make", "check"], mutant_make_build)
    assert res.returncode == 0, res.stdout + res.stderr
    assert ("10 of 10 mutants in scope (40 left out by --mutate compact.cu:12, --kernel compact); judging 10"
            in res.stderr)
    assert "scope: --mutate compact.cu:12, --kernel compact: 10 of 50 mutants judged, 40 left out" in res.stdout
    suite = ET.parse(tmp_path / "m.xml").getroot().find("testsuite")
    assert suite.get("tests") == "10" and {c.get("classname") for c in suite.iter("testcase")} == {"cltc.mutate.compact"}
    assert sorted(c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None) == [
        "compact.cu:12:22:relational:>", "compact.cu:12:9:relational:!=", "compact.cu:12:9:relational:<="]


@needs_tools
def test_ctest_under_cltc_mutate_reports_what_no_process_reached(mutant_cmake_build, tmp_path):
    """`ctest -R scale` runs the program that holds both library units, and only scale's kernel: the
    histogram's barrier deletion and plain atomics are not reached. The whole ctest reaches them; its
    histogram test checks no output, so they survive."""
    root = PROJECTS / "cmake_app"
    scale = _run([CLTC, "mutate", "--operators", "barrier,atomic", "--json", tmp_path / "s.json", "--",
                  "ctest", "--test-dir", mutant_cmake_build, "-R", "scale"], root)
    assert scale.returncode == 0, scale.stdout + scale.stderr
    assert _verdicts(json.loads((tmp_path / "s.json").read_text()), "histogram.cu") == {
        "9:14 atomic plain_atomicAdd": "no-coverage", "10:3 barrier ": "no-coverage",
        "11:27 atomic plain_atomicAdd": "no-coverage"}
    assert "Not reached by any process: 3" in scale.stdout
    both = _run([CLTC, "mutate", "--operators", "barrier,atomic", "--json", tmp_path / "b.json", "--",
                 "ctest", "--test-dir", mutant_cmake_build], root)
    assert both.returncode == 0, both.stdout + both.stderr
    report = json.loads((tmp_path / "b.json").read_text())
    assert set(_verdicts(report, "histogram.cu").values()) == {"survived"} and len(report["mutants"]) == 3
    assert report["mutants"][0]["covered_by"] == [f"{mutant_cmake_build}/app histogram 300"]


@needs_tools
def test_a_command_over_another_build_or_none_is_refused_with_what_to_do(cmake_build, tmp_path):
    """A command whose processes ran no unit built for the mode, a build made in another mode, options
    that belong to suites and bad build modes: exit 2, one line that says what to do."""
    def refused(args, cwd=tmp_path, env=CPU) -> str:
        res = _run(args, cwd, env=env)
        assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stdout + res.stderr
        return res.stderr
    for tool in ("mutate", "amplify"):
        none = refused([CLTC, tool, "--", "true"])
        assert "no instrumented unit ran under the command" in none and f"CLTC_MODE={tool}" in none
        other = refused([CLTC, tool, "--", "ctest", "--test-dir", cmake_build])
        assert "built by cltc-cc for another mode: coverage (2 processes)" in other, other
        assert f"rebuild the project with CLTC_MODE={tool}" in other
        assert "drop --dask" in refused([CLTC, tool, "--dask", "local", "--", "true"])
        assert "drop --test" in refused([CLTC, tool, "--test", "t", "--", "true"])
        assert "drop -p" in refused([CLTC, tool, "-p", "build", "--", "true"])
        assert "no such command" in refused([CLTC, tool, "--", "./no-such-program"])
    assert "must be at least 1" in _run([CLTC, "mutate", "--runs", "0", "--", "true"], tmp_path).stderr
    assert "unknown mutation operator(s): nope" in _run([CLTC, "mutate", "--operators", "nope", "--", "true"],
                                                       tmp_path).stderr
    (tmp_path / "k.cu").write_text("__global__ void k(int *a) { a[threadIdx.x] += 1; }\n")
    bad_mode = refused([CLTC_CC, "nvcc", "-c", "k.cu", "-o", "k.o"], env=dict(CPU, CLTC_MODE="mutant"))
    assert "CLTC_MODE=mutant: cltc-cc builds for CLTC_MODE=coverage" in bad_mode
    counted = refused([CLTC_CC, "nvcc", "-c", "k.cu", "-o", "k.o"], env=dict(CPU, CLTC_MODE="mutate",
                                                                              CLTC_COUNT_EXECUTIONS="1"))
    assert "counts of executions are coverage's" in counted
    # coverage: a build that records flags cannot give counts
    flags = refused([CLTC, "coverage", "--count-executions", "--", "ctest", "--test-dir", cmake_build])
    assert "recorded flags, not counts" in flags and "CLTC_COUNT_EXECUTIONS=1" in flags
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu"]   # nothing half-written


@needs_tools
def test_a_unit_whose_mutants_do_not_all_compile_drops_those_lines(tmp_path):
    """A mutant of a shared array's size cannot compile (the size must be a constant): the unit is
    planned again without that line's mutants, which its table lists as dropped, and builds; the
    process's log gives its mutants by stable id, at the lines of the user's file."""
    (tmp_path / "k.cu").write_text(
        "#define N 32\n"
        "__global__ void k(int *a) {\n"
        "  __shared__ int s[N + 1];\n"
        "  s[threadIdx.x] = a[threadIdx.x] * 2;\n"
        "  __syncthreads();\n"
        "  a[threadIdx.x] = s[N - 1 - threadIdx.x];\n"
        "}\n"
        "int main() { int *d; cudaMalloc(&d, N * sizeof(int)); k<<<1, N>>>(d); cudaDeviceSynchronize(); return 0; }\n")
    built = _run([CLTC_CC, "nvcc", "k.cu", "-o", "k"], tmp_path, env=dict(CPU, CLTC_MODE="mutate"))
    assert built.returncode == 0, built.stderr
    (tmp_path / "logs").mkdir()
    assert _run(["./k"], tmp_path, env=dict(CPU, CLTC_MUT_LOG_DIR=str(tmp_path / "logs"))).returncode == 0
    from cltestcheck.mutate import units
    from cltestcheck.mutate.planner import selector
    (log,) = (tmp_path / "logs").iterdir()
    process = units.read_log(log)
    (table, base, active), = process.units
    assert (base, active) == (0, 0) and process.name == "./k" and process.backend == "cpu"
    assert {(m.line, m.operator, m.replacement) for m in table.dropped} >= {(3, "arithmetic", "-")}
    assert all(m.line != 3 for m in table.mutants)
    program = units.merge([process])
    assert [m.id for m in program.mutants] == list(range(1, len(program.mutants) + 1))
    assert f"{tmp_path}/k.cu:4:35:arithmetic:+" in program.by_selector   # (`* 2` -> `+ 2`)
    assert selector(program.by_selector[f"{tmp_path}/k.cu:4:35:arithmetic:+"], str(tmp_path)) == "k.cu:4:35:arithmetic:+"


# ---------------------------------------------------------------- cltc amplify -- COMMAND

@needs_tools
def test_make_check_under_cltc_amplify_names_the_schedules_that_change_its_status(gated_make_build, tmp_path):
    """compact appends in the order its 4 blocks run and checks index order: `make check` passes when
    blocks run in ascending order (and when a block past its grid is named first), fails otherwise."""
    res = _run([CLTC, "amplify", "-j", "2", "--json", tmp_path / "a.json", "--", "make", "check"], gated_make_build)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "make check: SCHEDULE-DEPENDENT (10 schedules, 10 runs, 32 blocks)" in res.stdout
    report = json.loads((tmp_path / "a.json").read_text())
    test = report["tests"][0]
    assert report["command"] == "make check" and test["outputs"] == ["exit status 0", "exit status 2"]
    changed = {s["schedule"].split(":")[0] for s in test["schedules"] if s["outputs"] != {"0": 1}}
    kept = {s["schedule"].split(":")[0] for s in test["schedules"] if s["outputs"] == {"0": 1}}
    assert changed == {"desc", "random"} and kept == {"first", "asc", "free"}
    assert sum(s["schedule"].startswith("random:") for s in test["schedules"]) == 3


# ---------------------------------------------------------------- cltc coverage --count-executions

@needs_tools
def test_counts_of_executions_through_cltc_cc(tmp_path):
    """CLTC_COUNT_EXECUTIONS=1 at build time: each unit counts the threads that pass each item, and
    `cltc coverage --count-executions` sums them over the processes."""
    (tmp_path / "c.cu").write_text(
        "__global__ void k(int *a, int n) { for (int j = 0; j < n; ++j) if (threadIdx.x % 2) a[threadIdx.x] += j; }\n"
        "int main() { int *d; cudaMalloc(&d, 256); k<<<1, 8>>>(d, 3); cudaDeviceSynchronize(); return 0; }\n")
    counting = dict(CPU, CLTC_COUNT_EXECUTIONS="1")
    assert _run([CLTC_CC, "nvcc", "c.cu", "-o", "c"], tmp_path, env=counting).returncode == 0
    res = _run([CLTC, "coverage", "--count-executions", "--json", "c.json", "--lcov", "c.info", "--",
                "sh", "-c", "./c && ./c"], tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    items = {i["label"]: i["executions"] for i in json.loads((tmp_path / "c.json").read_text())["items"]}
    # two processes of 8 threads: 16 entries; 3 rounds each: 48 tests of the if, 24 odd threads' thens
    assert items["global function k entered"] == 16
    assert items["if (threadIdx.x % 2): then"] == 24 and items["if (threadIdx.x % 2): else (absent)"] == 24
    assert "FNDA:16,k" in (tmp_path / "c.info").read_text()


@needs_tools
def test_kernels_launched_through_the_runtime_api_are_measured(tmp_path):
    """A program whose only launches are `cudaLaunchKernel` and `cudaLaunchCooperativeKernel` (no
    `<<<...>>>`, as cuda-samples' reductionMultiBlockCG and simpleAWBarrier): each is a launch to
    cltc, so the process writes its log and both kernels' items are measured, not 'no instrumented
    unit ran'."""
    (tmp_path / "api.cu").write_text(
        "#include <cstdio>\n"
        "__global__ void plain(int *a, int n) { if (threadIdx.x < n) a[threadIdx.x] = 1; else a[threadIdx.x] = 2; }\n"
        "__global__ void coop(int *a) { if (threadIdx.x == 0) a[0] += 10; }\n"
        "int main() {\n"
        "  int *d; cudaMalloc(&d, 8 * sizeof(int)); int n = 4;\n"
        "  void *pa[] = {&d, &n};\n"
        "  if (cudaLaunchKernel((const void *)plain, dim3(1), dim3(8), pa, 0, 0) != cudaSuccess) return 3;\n"
        "  void *ca[] = {&d};\n"
        "  if (cudaLaunchCooperativeKernel((void *)coop,\n"
        "                                  dim3(1), dim3(4), ca) != cudaSuccess) return 4;\n"
        "  int h[8]; cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
        "  printf(\"%d %d\\n\", h[0], h[7]); return 0; }\n")
    built = _run([CLTC_CC, "nvcc", "api.cu", "-o", "api"], tmp_path)
    assert built.returncode == 0, built.stderr
    res = _run([CLTC, "coverage", "--no-progress", "--json", "r.json", "--", "./api"], tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.startswith("11 2\n")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["total"]["branches"]["covered"] == report["total"]["branches"]["total"] == 4
