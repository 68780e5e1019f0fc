"""What cltc's reports share (issue 48): paths relative to a root (--root; by default the git work tree
holding the suite), coverage's --include/--omit, its headline TOTAL and JSON percent, `cltc coverage
combine`, coverage's --junit, and GitHub Actions' output of the three commands. One coverage run of
cov_features is shared (a module fixture); everything else is rendered or merged from its JSON."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from cltestcheck import config
from cltestcheck.coverage import combine, report_cobertura, report_json, report_lcov
from cltestcheck.coverage.report_junit import suite as junit_suite
from cltestcheck.judge import Verdict
from instrument.errors import UserError
from instrument.report_paths import ReportPaths, find_root, report_paths

from conftest import ROOT, run_tool, TESTS
from test_hirace_ci import junit   # (the JUnit shape CI reporters read, checked)

SUITES = TESTS / "suites"
FEATURES = SUITES / "cov_features" / "features.cu"


def cltc(*args, cwd, env=None, timeout=300) -> subprocess.CompletedProcess:
    return run_tool("cltestcheck.cli", *args, cwd=cwd, clear=("GITHUB_", "CLTC_"), env=env, timeout=timeout)


def github_env(work: Path) -> dict:
    (work / "summary.md").write_text("earlier step\n")
    return {"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(ROOT), "GITHUB_STEP_SUMMARY": str(work / "summary.md")}


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """cov_features measured once under GitHub Actions, its reports relative to tests/suites, a gate
    that fails (85.7% of the items are covered)."""
    work = tmp_path_factory.mktemp("measured")
    r = cltc("coverage", "--suite", SUITES / "cov_features", "--backend", "cpu", "-q", "--root", SUITES,
             "--json", "c.json", "--lcov", "c.info", "--cobertura", "c.xml", "--junit", "j.xml", "--fail-under", "95",
             cwd=work, env=github_env(work))
    return r, work


def _result(work: Path):
    """The run's result, read back from its JSON report."""
    return combine.combine([work / "c.json"], ReportPaths(SUITES))


# ---------------------------------------------------------------- paths: the root

def test_the_default_root_is_the_git_work_tree_else_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "repo" / "a" / "b").mkdir(parents=True)
    (tmp_path / "repo" / ".git").write_text("gitdir: elsewhere\n")   # a worktree's .git is a file
    assert find_root(tmp_path / "repo" / "a" / "b") == tmp_path / "repo"
    (tmp_path / "plain").mkdir()
    monkeypatch.chdir(tmp_path / "plain")
    assert find_root(tmp_path / "plain") == tmp_path / "plain" and find_root(FEATURES.parent) == ROOT
    paths = ReportPaths(tmp_path / "repo")
    assert paths.show(tmp_path / "repo" / "a" / "k.cu") == "a/k.cu" and paths.show(FEATURES) == str(FEATURES)
    assert paths.absolute("a/k.cu") == str(tmp_path / "repo" / "a" / "k.cu")
    with pytest.raises(UserError, match="--root .*nope: no such directory"):
        report_paths(tmp_path / "nope", tmp_path)


def test_every_coverage_report_names_files_relative_to_the_root(measured):
    r, work = measured
    assert r.returncode == 1, r.stderr
    assert "SF:cov_features/features.cu\n" in (work / "c.info").read_text()
    xml = ET.parse(work / "c.xml").getroot()
    assert xml.find("sources/source").text == str(SUITES)
    assert {c.get("filename") for c in xml.iter("class")} == {"cov_features/features.cu"}
    doc = json.loads((work / "c.json").read_text())
    assert (doc["root"], doc["suite"], list(doc["files"])) == (str(SUITES), "cov_features", ["cov_features/features.cu"])
    assert {i["file"] for i in doc["items"]} == {"cov_features/features.cu"}
    assert "  cov_features/features.cu:9: [classify] switch (v % 4): no case matched" in r.stdout
    # a root the files are not under: their absolute paths
    res = replace(_result(work), paths=ReportPaths(TESTS / "cuda"))
    assert f"SF:{FEATURES}\n" in report_lcov.render(res)
    assert f'filename="{FEATURES}"' in report_cobertura.render(res)


# ---------------------------------------------------------------- the total, JUnit, GitHub

def test_the_text_report_ends_with_the_total_and_the_json_has_its_percent(measured):
    r, work = measured
    assert r.stdout.rstrip().splitlines()[-1] == "TOTAL  18/21 items (branches, loop cases, barriers)  85.7%"
    assert sum(line.startswith("TOTAL") for line in r.stdout.splitlines()) == 1   # one figure for a CI regex
    total = json.loads((work / "c.json").read_text())["total"]
    assert (total["covered"], total["total"]) == (18, 21) and total["percent"] == pytest.approx(85.714, 0.001)
    assert total["branches"]["percent"] == pytest.approx(83.333, 0.001)


def test_junit_has_a_case_per_test_and_the_gate_as_a_failing_case(measured):
    _, work = measured
    root = ET.parse(work / "j.xml").getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {"zeros", "mixed", "fail-under"} and root.get("failures") == "1"
    assert cases["fail-under"].find("failure").get("message") == \
        "total coverage 85.7% (18/21) is under --fail-under 95"
    assert cases["zeros"].find("failure") is None and cases["zeros"].get("classname") == "cltc.coverage.cov_features"
    # a failed test is a failure of its case
    res = _result(work)
    res.tests[0].verdict = Verdict(False, "stdout differs: sum 3")
    [failure] = [c for c in junit_suite(res, {}, [], 1.0, "s").cases if c.failures]
    assert (failure.name, failure.failures[0].message) == ("zeros", "stdout differs: sum 3")


def test_under_github_actions_coverage_writes_a_summary_and_warns_of_the_gate(measured):
    r, work = measured
    assert "::warning title=cltc coverage%3A under --fail-under::total coverage 85.7%25 (18/21)" in r.stderr
    text = (work / "summary.md").read_text()
    assert text.startswith("earlier step\n### cltc coverage: 85.7% of 21 items covered (exit 1)")
    assert "| branches | 15 | 18 | 83.3% |" in text and "| `tests/suites/cov_features/features.cu` |" in text


# ---------------------------------------------------------------- --include / --omit

def test_include_and_omit_choose_the_files_counted(measured):
    res = _result(measured[1])
    other = str(FEATURES.with_name("other.cu"))   # scan_partial's items, as if they were another file's
    res = replace(res, table=res.table.with_files(lambda f: f), paths=ReportPaths(SUITES))
    for site in [*res.table.branches, *res.table.loops, *res.table.barriers, *res.table.functions]:
        if getattr(site, "function", getattr(site, "name", "")) == "scan_partial":
            site.file = other
    kept = res.select(None, ["*/other.cu"])
    assert kept.total().items == [13, 16] and kept.total().divergent == 0   # the divergent barrier was other.cu's
    assert {f.file for f in kept.table.functions} == {str(FEATURES)}
    only = res.select(["cov_features/other.cu"], None)
    assert only.total().items == [5, 5] and only.total().divergent == 1
    assert res.select(["*.cu"], None).total().items == res.total().items == [18, 21]
    with pytest.raises(UserError, match=r"--omit \*\.cu: no measured file is kept"):
        res.select(None, ["*.cu"])


# ---------------------------------------------------------------- combine

def test_combine_merges_runs_item_by_item_into_every_report(measured, tmp_path):
    """The run's two tests written as two runs' reports and combined: the same items, totals, lcov."""
    _, work = measured
    res = _result(work)
    for t in res.tests:
        (tmp_path / f"{t.name}.json").write_text(report_json.render(replace(res, tests=[t])))
    r = cltc("coverage", "combine", "zeros.json", "mixed.json", "--root", SUITES, "--json", "all.json",
             "--lcov", "all.info", "--fail-under", "80", "--no-github", cwd=tmp_path, env=github_env(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("cltc coverage: 2 reports combined (zeros.json, mixed.json; cpu backend), 2 tests")
    assert "::" not in r.stderr and (tmp_path / "summary.md").read_text() == "earlier step\n"   # --no-github
    got, want = (json.loads(p.read_text()) for p in (tmp_path / "all.json", work / "c.json"))
    assert got["total"] == want["total"] and got["divergences"] == want["divergences"]
    assert [(i["line"], i["label"], i["covered"], i["tests"]) for i in got["items"]] == \
        [(i["line"], i["label"], i["covered"], i["tests"]) for i in want["items"]]
    strip = [ln for ln in (work / "c.info").read_text().splitlines() if not ln.startswith("TN:")]
    assert [ln for ln in (tmp_path / "all.info").read_text().splitlines() if not ln.startswith("TN:")] == strip


def test_combine_refuses_what_cannot_be_merged(measured, tmp_path):
    _, work = measured
    doc = json.loads((work / "c.json").read_text())
    paths = ReportPaths(SUITES)

    def refused(name, change, match):
        d = json.loads(json.dumps(doc))
        change(d)
        (tmp_path / name).write_text(json.dumps(d))
        with pytest.raises(UserError, match=match):
            combine.combine([work / "c.json", tmp_path / name], paths)

    refused("edited.json", lambda d: d["data"]["sources"].update({"cov_features/features.cu": "sha256:0"}),
            "measured different versions of cov_features/features.cu")
    refused("old.json", lambda d: d.pop("data"), "holds no `data` section")
    refused("future.json", lambda d: d["data"].update(format=2), "of format 2; this cltc merges format 1")
    refused("counts.json", lambda d: d["data"].update(executions=True), "counts executions .* cannot be merged")
    refused("mutants.json", lambda d: d.update(tool="cltc mutate"), "not a cltc coverage JSON report")
    with pytest.raises(UserError, match="is given twice"):
        combine.combine([work / "c.json", work / "c.json"], paths)
    # a name two runs share is told apart by its report
    shutil.copy(work / "c.json", tmp_path / "again.json")
    names = [t.name for t in combine.combine([work / "c.json", tmp_path / "again.json"], paths).tests]
    assert names == [f"zeros ({work / 'c.json'})", f"mixed ({work / 'c.json'})",
                     f"zeros ({tmp_path / 'again.json'})", f"mixed ({tmp_path / 'again.json'})"]
    # from the command line: exit 2, one line, nothing written; never over a report it merges
    r = cltc("coverage", "combine", work / "c.json", tmp_path / "edited.json", "--json", "out.json", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr and not (tmp_path / "out.json").exists()
    before = (tmp_path / "again.json").read_bytes()
    r = cltc("coverage", "combine", "again.json", "--lcov", "again.json", cwd=tmp_path)
    assert r.returncode == 2 and "--lcov again.json: refusing to write there" in r.stderr
    assert (tmp_path / "again.json").read_bytes() == before


def test_the_new_keys_read_from_a_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cltc]\nroot = "src"\ngithub = false\n[tool.cltc.coverage]\ninclude = "src/*"\n'
        'omit = ["*/gen/*"]\njunit = "out/j.xml"\n')
    got = config.defaults("coverage", tmp_path / "pyproject.toml")
    assert got == {"root": tmp_path / "src", "github": False, "include": ["src/*"], "omit": ["*/gen/*"],
                   "junit": tmp_path / "out" / "j.xml"}


# ---------------------------------------------------------------- mutate and amplify

def test_mutate_names_files_from_the_root_and_annotates_surviving_mutants(tmp_path):
    r = cltc("mutate", "--suite", SUITES / "mut_basic", "--backend", "cpu", "--runs", "1", "--operators", "relational",
             "--root", SUITES, "--stryker", "s.json", "--json", "m.json", cwd=tmp_path, env=github_env(tmp_path))
    assert r.returncode == 0, r.stderr
    stryker = json.loads((tmp_path / "s.json").read_text())
    assert stryker["projectRoot"] == str(SUITES) and list(stryker["files"]) == ["mut_basic/clamp.cu"]
    assert {m["file"] for m in json.loads((tmp_path / "m.json").read_text())["mutants"]} == {"mut_basic/clamp.cu"}
    assert "  #" in r.stdout and " mut_basic/clamp.cu:9:11 [relational] > replaced by >=" in r.stdout
    warnings = [ln for ln in r.stderr.splitlines() if ln.startswith("::warning ")]
    assert len(warnings) == 3 and all("survived mutant (relational)" in w for w in warnings)
    assert ("::warning file=tests/suites/mut_basic/clamp.cu,line=9,col=11,title=cltc mutate%3A survived mutant "
            "(relational)::> replaced by >=: no test noticed it%0A- if (v > limit) v = limit;") in r.stderr
    assert "### cltc mutate: mutation score 70.0% (fair) (exit 0)" in (tmp_path / "summary.md").read_text()


def test_amplify_warns_of_each_schedule_dependent_test(tmp_path):
    r = cltc("amplify", "--suite", SUITES / "amp_blocks", "--backend", "cpu", "--schedules", "desc",
             "--json", "a.json", cwd=tmp_path, env=github_env(tmp_path))
    assert r.returncode == 1, r.stderr
    warnings = [ln for ln in r.stderr.splitlines() if ln.startswith("::warning ")]
    assert warnings == [f"::warning title=cltc amplify%3A schedule-dependent test::{t}: schedule-dependent: its "
                        f"outcome changed under desc" for t in ("last_writer", "block0_first")]
    assert "| last_writer | schedule-dependent | 1 | desc |" in (tmp_path / "summary.md").read_text()
    assert json.loads((tmp_path / "a.json").read_text())["suite"] == "tests/suites/amp_blocks"   # the git root's


# ---------------------------------------------------------------- the CI recipe, as docs/cltc.md writes it

def test_the_ci_recipe_runs_as_written(tmp_path):
    import re
    import shlex
    import shutil
    text = (ROOT / "docs/cltc.md").read_text()
    [block] = re.findall(r"```yaml\n(# \.github/workflows/kernel-tests\.yml.*?)```", text, re.S)
    commands = [m.split("  #")[0].strip() for m in re.findall(r"^\s+run: (cltc .*)$", block, re.M)]
    assert [c.split()[:2] for c in commands] == [["cltc", "coverage"], ["cltc", "mutate"]]
    shutil.copytree(SUITES / "mut_basic", tmp_path / "kernels")
    (tmp_path / ".git").mkdir()   # (the checkout: reports name files from its root)
    env = github_env(tmp_path)
    env["GITHUB_WORKSPACE"] = str(tmp_path)
    for cmd in commands:
        r = cltc(*shlex.split(cmd)[1:], cwd=tmp_path, env=env)
        assert r.returncode == 0, (cmd, r.stdout, r.stderr)
    cov, mut = junit(tmp_path / "coverage-junit.xml"), junit(tmp_path / "mutation-junit.xml")
    assert cov.get("failures") == "0" and int(mut.get("failures")) > 0    # (surviving mutants: failures, not a red step)
    assert "SF:kernels/clamp.cu" in (tmp_path / "coverage.info").read_text()
    summary = (tmp_path / "summary.md").read_text()
    assert "### cltc coverage:" in summary and "### cltc mutate:" in summary
    assert "::warning file=kernels/clamp.cu,line=" in r.stderr
