"""Trust: a user's files are never written over, a failing program never passes, configuration that
names nothing is an error, option values are checked up front, nothing outlives the tool, any
failure is one line and exit 2, campaigns do not share files, unsupported constructs are named."""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, TESTS
from instrument.cli_support import positive_float, positive_int, run_main
from instrument.errors import UserError

SUITE = TESTS / "suites" / "mut_basic"
PROGRAM = ('#include <cstdio>\n__global__ void k(int *a) { a[threadIdx.x] = threadIdx.x; }\n'
           'int main() { int *d; cudaMalloc(&d, 64 * sizeof(int)); k<<<1, 64>>>(d);\n'
           '  cudaDeviceSynchronize(); printf("done\\n"); return EXIT; }\n')


@pytest.fixture
def work(tmp_path):
    """A copy of a cltc suite, a clean program, a config and an ECL graph, all inputs of runs."""
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    src = tmp_path / "prog.cu"
    src.write_text(PROGRAM.replace("EXIT", "0"))
    cfg = tmp_path / "hirace.toml"
    cfg.write_text("max_reports = 10\n")
    return tmp_path


def _snapshot(root: Path) -> dict:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _cases(w: Path):
    s = w / "suite"
    src, cfg, cu = w / "prog.cu", w / "hirace.toml", s / "clamp.cu"
    link = w / "report.json"
    link.symlink_to(src)
    yield "hirace.cli", ["run", "--backend", "cpu", "--format", "json", "--output", src, src]
    yield "hirace.cli", ["run", "--backend", "cpu", "--output", link, src]                 # through a symlink
    yield "hirace.cli", ["run", "--backend", "cpu", "--config", cfg, "--output", cfg, src]
    yield "hirace.cli", ["instrument", "-o", w, src]                                          # the sources' folder
    yield "instrument.run", ["--backend", "cpu", w]                                           # a folder as source
    for opt in ("--json", "--lcov", "--cobertura", "--junit"):
        yield "cltestcheck.cli", ["coverage", "--backend", "cpu", "--suite", s, opt, cu]
        yield "cltestcheck.cli", ["coverage", "--backend", "cpu", "--suite", s, opt, s / "cltc.toml"]
    yield "cltestcheck.cli", ["coverage", "--backend", "cpu", "--suite", s, "--html", s]
    for opt in ("--json", "--stryker", "--results"):
        yield "cltestcheck.cli", ["mutate", "--backend", "cpu", "--suite", s, opt, cu]
    yield "cltestcheck.cli", ["mutate", "--backend", "cpu", "--suite", s, "--html", s]
    yield "cltestcheck.cli", ["amplify", "--backend", "cpu", "--suite", s, "--json", s / "cltc.toml"]
    yield "cltestcheck.cli", ["amplify", "--backend", "cpu", "--suite", s, "--plots", s]
    yield "indigo_bench.cli", ["sweep", "--backend", "cpu", "--codes", s, "--graphs", w, "--out", s]
    yield "hirace.cli", ["verify-fsm", "--export", src]


def test_no_output_option_ever_writes_over_an_input(work, run_cli):
    cases = list(_cases(work))
    before = _snapshot(work)
    for module, args in cases:
        r = run_cli(module, *args, timeout=120)
        assert r.returncode == 2, (module, args, r.stderr)
        assert "Traceback" not in r.stderr
        assert r.stderr.count("error:") == 1, r.stderr
        assert _snapshot(work) == before, (module, args)
    assert (work / "report.json").is_symlink()


def test_bad_output_places_are_refused_before_any_work(work, run_cli):
    (work / "afile").write_text("x")
    src = work / "prog.cu"
    for out, why in ((work / "afile" / "r.json", "cannot write there"), (work / "suite", "is a directory"),
                     ("/proc/hirace-test/r.json", "cannot write there")):
        r = run_cli("hirace.cli", "run", "--backend", "cpu", "--output", out, src)
        assert r.returncode == 2 and why in r.stderr, r.stderr
        assert r.stdout == ""   # the program never ran
    r = run_cli("cltestcheck.cli", "coverage", "--backend", "cpu", "--suite", work / "suite",
                "--html", work / "afile")
    assert r.returncode == 2 and "is not a directory" in r.stderr
    r = run_cli("cltestcheck.cli", "coverage", "--backend", "cpu", "--suite", work / "suite",
                "--json", work / "r.json", "--lcov", work / "r.json")
    assert r.returncode == 2 and "same path" in r.stderr


def _hirace_json(run_cli, tmp_path, src, *extra):
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--format", "json", "--output", out, *extra, src)
    return r, (json.loads(out.read_text()) if out.is_file() else None)


def test_a_failing_program_is_never_a_pass(work, run_cli, own_build_cache):
    src = work / "exit3.cu"
    src.write_text(PROGRAM.replace("EXIT", "3"))
    r = run_cli("hirace.cli", "run", "--backend", "cpu", src)
    assert r.returncode == 2
    assert "no data races found" in r.stderr and "the program exited with status 3" in r.stderr
    r, doc = _hirace_json(run_cli, work, src)
    assert r.returncode == 2 and doc["summary"]["program_exit"] == 3
    sarif = work / "r.sarif"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--format", "sarif", "--output", sarif, src)
    inv = json.loads(sarif.read_text())["runs"][0]["invocations"][0]
    assert r.returncode == 2 and inv["executionSuccessful"] is False
    assert inv["properties"]["programExitCode"] == 3


def test_a_program_that_launches_no_kernel_passes_with_a_note(work, run_cli):
    src = work / "host.cu"
    src.write_text('#include <cstdio>\nint main() { printf("host only\\n"); return 0; }\n')
    r = run_cli("hirace.cli", "run", "--backend", "cpu", src)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "host only\n"
    assert "launched no kernel" in r.stderr


def test_error_exitcode_is_the_status_for_races(work, run_cli, own_build_cache):
    src = work / "racy.cu"
    src.write_text(PROGRAM.replace("a[threadIdx.x] = threadIdx.x", "a[0] = threadIdx.x").replace("EXIT", "0"))
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--error-exitcode", "7", src)
    assert r.returncode == 7 and "data race (write-write)" in r.stderr
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--error-exitcode", "0", src)   # report only
    assert r.returncode == 0 and "data race (write-write)" in r.stderr
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--error-exitcode", "256", src)
    assert r.returncode == 2 and "between 0 and 255" in r.stderr


@pytest.mark.parametrize("key", ["kernels", "monitor", "ignore"])
def test_configuration_that_names_nothing_is_an_error(work, run_cli, key):
    cfg = work / "hirace.toml"
    cfg.write_text(f'{key} = ["no_such_name"]\n')
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "-v", "--config", cfg, work / "prog.cu")
    assert r.returncode == 2
    assert f"'{key}' names 'no_such_name', which the program does not have" in r.stderr
    assert "hirace: backend: cpu" in r.stderr and "hirace: $ " not in r.stderr   # said before any compile
    assert ("kernels: k" if key == "kernels" else "variables accessed in kernels: a") in r.stderr
    assert r.stdout == ""


def test_managed_memory_is_checked_like_device_memory(work, run_cli):
    src = work / "managed.cu"
    src.write_text('#include <cstdio>\n__managed__ int m[4];\n__global__ void k() { m[0] = threadIdx.x; }\n'
                   'int main() { k<<<1, 64>>>(); cudaDeviceSynchronize(); printf("%d\\n", m[0] >= 0); }\n')
    r, doc = _hirace_json(run_cli, work, src)
    assert r.returncode == 1, r.stderr
    assert [(x["variable"], x["kind"], x["site"]["line"]) for x in doc["races"]] == [("m", "write-write", 3)]
    src.write_text('#include <cstdio>\n__global__ void k(int *m) { m[0] = threadIdx.x; }\n'
                   'int main() { int *m; cudaMallocManaged(&m, 16); k<<<1, 64>>>(m); cudaDeviceSynchronize();\n'
                   '  printf("%d\\n", m[0] >= 0); }\n')
    r, doc = _hirace_json(run_cli, work, src)
    assert r.returncode == 1 and [x["variable"] for x in doc["races"]] == ["m"]


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.text(max_size=6)))
def test_option_values_are_checked(value):
    text = str(value)
    try:
        v = float(text)
        ok_float = v > 0 and v != float("inf")
    except ValueError:
        ok_float = False
    try:
        ok_int = int(text) >= 1
    except ValueError:
        ok_int = False
    for check, ok in ((positive_float, ok_float), (positive_int, ok_int)):
        if ok:
            assert check(text) > 0
        else:
            with pytest.raises(argparse.ArgumentTypeError):
                check(text)


@pytest.mark.parametrize("module,args", [
    ("hirace.cli", ["run", "--timeout", "-5", "x.cu"]),
    ("hirace.cli", ["run", "--timeout", "nan", "x.cu"]),
    ("instrument.run", ["--timeout", "inf", "x.cu"]),
    ("cltestcheck.cli", ["coverage", "--suite", "s", "-j", "0"]),
    ("cltestcheck.cli", ["amplify", "--suite", "s", "--timeout", "-1"]),
    ("cltestcheck.cli", ["mutate", "--suite", "s", "--runs", "0"]),
    ("indigo_bench.cli", ["sweep", "--codes", "c", "--graphs", "g", "--out", "o", "--timeout", "-1"]),
    ("indigo_bench.cli", ["sweep", "--codes", "c", "--graphs", "g", "--out", "o", "--tpb", "0"]),
    ("indigo_bench.cli", ["graphs", "--kind", "grid", "--nodes", "-4", "-o", "g.egr"]),
])
def test_bad_option_values_stop_before_any_work(run_cli, module, args):
    r = run_cli(module, *args)
    assert r.returncode == 2 and "error: argument" in r.stderr and "Traceback" not in r.stderr


def test_any_failure_is_one_line_and_exit_2(capsys, monkeypatch):
    monkeypatch.delenv("CCTK_DEBUG", raising=False)

    def boom():
        raise RuntimeError("something broke\nsecond line")
    assert run_main("tool", boom) == 2
    err = capsys.readouterr().err
    assert err.startswith("tool: internal error: RuntimeError: something broke (rerun with --debug")
    assert err.count("\n") == 1

    def missing():
        open("/nonexistent-dir/x.txt")
    assert run_main("tool", missing) == 2
    assert capsys.readouterr().err == "tool: error: /nonexistent-dir/x.txt: No such file or directory\n"

    def user():
        raise UserError("x.cu:3: bad", hint="do this")
    assert run_main("tool", user) == 2
    monkeypatch.setenv("CCTK_DEBUG", "1")
    assert run_main("tool", boom) == 2
    assert "Traceback" in capsys.readouterr().err


def test_unreadable_configs_and_suites_are_named(work, run_cli):
    (work / "bin.toml").write_bytes(b"\x00\x01\x02")
    (work / "latin.toml").write_bytes("kernels = ['caf\xe9']\n".encode("latin-1"))
    for cfg, why in ((work, "is a directory, not a config file"), (work / "bin.toml", "is a binary file"),
                     (work / "latin.toml", "is not UTF-8 text")):
        r = run_cli("hirace.cli", "run", "--backend", "cpu", "--config", cfg, work / "prog.cu")
        assert r.returncode == 2 and why in r.stderr and "Traceback" not in r.stderr, r.stderr
    (work / "suite" / "cltc.toml").write_bytes("[build]\nsources = ['\xe9.cu']\n".encode("latin-1"))
    r = run_cli("cltestcheck.cli", "coverage", "--backend", "cpu", "--suite", work / "suite")
    assert r.returncode == 2 and "cltc.toml: the suite file is not UTF-8 text" in r.stderr


def _children_of_tmp(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir())


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for whoever adopted it to reap it has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.parametrize("module,args", [("hirace.cli", ["run", "--backend", "cpu"]),
                                         ("instrument.run", ["--backend", "cpu"])])
def test_the_program_dies_with_the_tool_and_its_scratch_goes_too(tmp_path, module, args):
    src = tmp_path / "hang.cu"
    src.write_text('#include <cstdio>\n#include <unistd.h>\n__global__ void k(int *a) { a[threadIdx.x] = 1; }\n'
                   'int main() { int *d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); cudaDeviceSynchronize();\n'
                   '  printf("spinning %d\\n", (int)getpid()); fflush(stdout); while (1) {} }\n')
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    tool = subprocess.Popen([sys.executable, "-m", module, *args, str(src)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=env)
    line = tool.stdout.readline()
    assert line.startswith("spinning"), line
    pid = int(line.split()[1])
    assert _children_of_tmp(scratch)            # the build's scratch directory exists meanwhile
    tool.send_signal(signal.SIGKILL)
    tool.wait()
    for _ in range(300):
        gone = not _alive(pid) and not _children_of_tmp(scratch)
        if gone:
            break
        time.sleep(0.1)
    assert not _alive(pid), "the program outlived the tool"
    assert _children_of_tmp(scratch) == []


def test_a_program_not_yet_registered_still_dies_with_the_tool():
    """The tool can die between starting a program and telling its guardian: the program's
    environment mark is enough for the guardian to find it."""
    from instrument import reaper
    mark = "test-" + os.urandom(4).hex()
    guardian = subprocess.Popen([sys.executable, "-I", "-S", reaper.__file__, mark],
                                stdin=subprocess.PIPE, start_new_session=True)
    program = subprocess.Popen(["sleep", "600"], start_new_session=True,
                               env=dict(os.environ, **{reaper.MARK_VARIABLE: mark}))
    other = subprocess.Popen(["sleep", "600"], start_new_session=True,
                             env=dict(os.environ, **{reaper.MARK_VARIABLE: mark + "x"}))
    try:
        guardian.stdin.close()                       # the tool is gone; nothing was registered
        assert guardian.wait(timeout=30) == 0
        assert program.wait(timeout=30) == -signal.SIGKILL
        assert other.poll() is None                  # another tool's program is left alone
    finally:
        for p in (program, other):
            p.kill()
            p.wait()


def test_two_campaigns_never_share_a_results_file(work, run_cli):
    from instrument.execution.journal import campaign_lock
    results = work / "mut.csv"
    with campaign_lock(results, "test campaign"):
        r = run_cli("cltestcheck.cli", "mutate", "--backend", "cpu", "--suite", work / "suite",
                    "--results", results)
        assert r.returncode == 2 and "another cltc mutate campaign is using this file" in r.stderr
    graphs = work / "graphs"
    r = run_cli("indigo_bench.cli", "graphs", "--kind", "grid", "--nodes", "16", "-o", graphs / "g.egr")
    assert r.returncode == 0, r.stderr
    out = work / "sweep"
    with campaign_lock(out / "results.csv", "test sweep"):
        r = run_cli("indigo_bench.cli", "sweep", "--backend", "cpu", "--codes", ROOT / "examples" / "indigo_mini" / "codes",
                    "--include", ROOT / "examples" / "indigo_mini" / "include", "--graphs", graphs, "--out", out)
        assert r.returncode == 2 and "another indigo-bench sweep is using this file" in r.stderr


def test_a_sweep_folder_keeps_one_setup(work, run_cli):
    from indigo_bench.results import Journal, Row
    out = work / "sweep"
    j = Journal(out)
    j.add(Row("max_reduce", "max_reduce", "", "race-free", "g.egr", "hirace", "cpu", 128, 1024, "no race", "0",
              "matches", 0, 0.1, "", ""))
    j.close()
    graphs = work / "graphs"
    assert run_cli("indigo_bench.cli", "graphs", "--kind", "grid", "--nodes", "16", "-o", graphs / "g.egr").returncode == 0
    r = run_cli("indigo_bench.cli", "sweep", "--backend", "cpu", "--codes", ROOT / "examples" / "indigo_mini" / "codes",
                "--include", ROOT / "examples" / "indigo_mini" / "include", "--graphs", graphs, "--out", out,
                "--tpb", "256")
    assert r.returncode == 2
    assert "holds a sweep with --tpb 128 --blocks 1024 on the cpu backend" in r.stderr


@pytest.mark.parametrize("body,why,where", [
    ("__global__ void child(int *a) { a[threadIdx.x] = 1; }\n"
     "__global__ void k(int *a) { child<<<1, 32>>>(a); }\n", "dynamic parallelism", ":3:29"),
    ("__device__ unsigned lane() { unsigned r; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n"
     "__global__ void k(int *a) { a[threadIdx.x] = lane(); }\n", "inline assembly (asm/PTX)", ":2:42"),
])
def test_unsupported_constructs_are_refused_by_name(tmp_path, run_cli, body, why, where):
    src = tmp_path / "u.cu"
    src.write_text("#include <cstdio>\n" + body +
                   "int main() { int *d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); cudaDeviceSynchronize(); }\n")
    for module, args in (("hirace.cli", ["run", "--backend", "cpu"]), ("instrument.run", ["--backend", "cpu"])):
        r = run_cli(module, *args, src)
        assert r.returncode == 2
        assert f"{src}{where}: " in r.stderr and why in r.stderr, r.stderr
