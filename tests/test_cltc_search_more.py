"""cltc search beyond a cltc.toml suite's printed output: a pytest kernel suite (its launches' scalars
and arrays changed by the search's plugin, the kept inputs written as a pytest file that replays them,
NaN and Inf the kernel wrote into an array), `-- PROGRAM ARGS` over a program built through cltc-cc
(kept commands written as a script that `cltc coverage --` measures), NaN and Inf in a file the program
writes, --junit, the [search] table of cltc.toml, and the report of what stays unreached (the closest
input, or why no distance). Small budgets, fixed seeds; the pytest search is the slow one (a pytest
process a run: about 30 s)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from cltestcheck import cli
from cltestcheck.search import loop
from cltestcheck.suite import load

from conftest import BIN, ROOT

SUITES = ROOT / "tests" / "suites"


def test_search_over_a_pytest_suite_changes_the_launches_and_writes_a_pytest_file(tmp_path, module_build_cache, capsys,
                                                                                   quiet_pytest_children):
    out = tmp_path / "found"
    res = loop.run(load(SUITES / "search_pytest"), out, "cpu", seed=1, budget_runs=12, progress=False, cache=True)
    assert res.kind == "pytest"
    [kept] = res.kept
    assert any(":9: [scale] if (v < 0.0f): then" in a for a in kept.adds)
    assert any(h.startswith("launch-1/3-x.txt: number") for h in kept.inp.how)
    # the kernel wrote Inf into y (v * v overflowed), which the test's launch never did
    [inf] = res.specials
    assert inf["kind"] == "inf" and inf["where"].startswith("y[") and "kernel scale" in inf["where"]
    # k > 8 stays unreached, with how close a run came (a float comparison: doubles between)
    [left] = res.unreached()
    assert left.label == "if (k > 8.0f): then" and res.closest[left.key][0] > 0
    assert res.closest_inputs[left.key]["test"] == "test_scale.py::test_scale_squares"
    # runs whose n outgrew the arrays wrote outside them: failed, not kept
    assert all("wrote outside the array" in f["why"] for f in res.failures)
    # written as a pytest suite: a test replaying the launches, the kernels linked, measured as it is
    text = (out / "test_search_found.py").read_text()
    assert "def test_search_001(cuda_kernel):" in text and "# adds: tests/suites/search_pytest/scale.cu:9:" in text
    assert (out / "kernels" / "scale.cu").resolve() == (SUITES / "search_pytest" / "scale.cu").resolve()
    launches = json.loads((out / "inputs" / "search-001" / "launches.json").read_text())
    assert launches[0]["kernel"] == "scale" and (out / "inputs" / "search-001" / launches[0]["args"][2]["npy"]).is_file()
    capsys.readouterr()
    assert cli.main(["coverage", "--suite", str(out), "--backend", "cpu", "-q", "--no-progress"]) == 0
    measured = capsys.readouterr().out   # (the written test passes, and reaches what the input added)
    assert "if (k > 8.0f): then" in measured and "if (v < 0.0f): then" not in measured


@pytest.fixture(scope="module")
def thin_program(tmp_path_factory):
    """tests/suites/search_thin/thin.cu built by cltc-cc (coverage mode) for the cpu backend."""
    where = tmp_path_factory.mktemp("thin_cc")
    shutil.copy(SUITES / "search_thin" / "thin.cu", where)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLTC_", "HIRACE_"))}
    res = subprocess.run([str(BIN / "cltc-cc"), "nvcc", "thin.cu", "-o", "thin"], cwd=where,
                         env={**env, "CLTC_BACKEND": "cpu"}, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return where


def test_search_over_a_command_writes_a_script_cltc_coverage_measures(thin_program, monkeypatch, capsys):
    monkeypatch.chdir(thin_program)
    shutil.rmtree(thin_program / "cltc-search", ignore_errors=True)
    status = cli.main(["search", "--budget-runs", "40", "--no-progress", "-v", "--json", "s.json",
                       "--junit", "s.xml", "--", "./thin", "8", "1", "5"])
    text = capsys.readouterr().out
    doc = json.loads((thin_program / "s.json").read_text())
    assert status == 1
    assert doc["command"] == "./thin 8 1 5" and text.startswith("cltc search: -- ./thin 8 1 5")
    assert doc["findings"]["nan_inf"] and doc["findings"]["nan_inf"][0]["where"] == "its output"
    assert doc["items"]["reached"] > doc["items"]["by_tests"]
    unreached = {u["label"]: u for u in doc["unreached"]}
    assert "no distances with -- COMMAND" in unreached["if (key == 4242): then"]["no_distance"]
    script = (thin_program / "cltc-search" / "commands.sh").read_text()
    assert script.count("\ncheck 0 ./thin ") == len(doc["kept"])
    # JUnit: a case per kept input (the NaN one a failure), per unreached item (skipped)
    suite = ET.parse(thin_program / "s.xml").getroot().find("testsuite")
    assert suite.get("failures") == "1" and int(suite.get("skipped")) == len(doc["unreached"])
    # the kept commands measured as the project's own tests are
    assert cli.main(["coverage", "--no-progress", "-q", "--json", "c.json", "--", "sh", "cltc-search/commands.sh"]) == 0
    cov = json.loads((thin_program / "c.json").read_text())
    assert cov["total"]["covered"] >= doc["items"]["reached"] - doc["items"]["by_tests"]


def test_a_command_without_input_or_instrumented_program_is_refused(thin_program, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(thin_program)
    assert cli.main(["search", "--no-progress", "--out", str(tmp_path / "a"), "--", "ctest", "--test-dir", "b"]) == 2
    assert "no number and name no file" in capsys.readouterr().err
    assert cli.main(["search", "--no-progress", "--out", str(tmp_path / "b"), "--junit", str(tmp_path / "e.xml"),
                     "--", "/bin/echo", "5"]) == 2
    assert "no instrumented unit ran" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()   # (no --out left by a refused search)
    assert ET.parse(tmp_path / "e.xml").getroot().find("testsuite").get("errors") == "1"
    assert cli.main(["search", "--no-progress", "--check", "races", "--", "./thin", "8"]) == 2
    assert "--check races" in capsys.readouterr().err


def test_nan_and_inf_in_a_written_file_and_the_search_table_of_cltc_toml(tmp_path, monkeypatch, capsys, module_build_cache):
    suite = tmp_path / "suite"
    shutil.copytree(SUITES / "search_files", suite)
    with open(suite / "cltc.toml", "a") as fh:
        fh.write('\n[search]\nbudget_runs = 24\nseed = 0\njunit = "search.xml"\njson = "search.json"\n'
                 'out = "../found"\n')
    monkeypatch.chdir(suite)
    status = cli.main(["search", "--backend", "cpu", "--no-progress", "-q"])
    doc = json.loads((suite / "search.json").read_text())
    assert status == 1 and doc["runs"]["generated"] == 24 and doc["seed"] == 0
    assert {f["kind"] for f in doc["findings"]["nan_inf"]} == {"nan", "inf"}
    assert {f["where"] for f in doc["findings"]["nan_inf"]} == {"the file it wrote, out.txt"}
    assert "# Inf in the file it wrote, out.txt" in (tmp_path / "found" / "cltc.toml").read_text() or \
        "# NaN in the file it wrote, out.txt" in (tmp_path / "found" / "cltc.toml").read_text()
    [closest] = [u for u in doc["unreached"] if "closest" in u]
    assert closest["label"] == "if (i > 3): then" and closest["closest"]["test"] == "d-one"
    root = ET.parse(suite / "search.xml").getroot().find("testsuite")
    assert root.get("failures") == "1" and root.get("skipped") == "1"
    capsys.readouterr()
    with open(suite / "cltc.toml", "a") as fh:
        fh.write("timeout = 0\n")
    assert cli.main(["search", "--backend", "cpu", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "cltc.toml [search]: 'timeout' must be a positive number" in err and "Traceback" not in err
