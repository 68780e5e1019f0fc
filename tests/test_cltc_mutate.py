"""cltc mutate end to end on the cpu backend: exact killed/survived/undecided counts, reports, errors."""
from __future__ import annotations

import json

import jsonschema
import pytest

from cltestcheck import suite as suite_mod
from cltestcheck.mutate import engine
from cltestcheck.mutate.results import counts
from instrument.errors import UserError

from conftest import CUDA, TESTS

SUITES = TESTS / "suites"


def _run(name, runs=3, operators=None):
    return engine.run(suite_mod.load(SUITES / name), "cpu", operators, runs=runs, jobs=2, progress=False)


def _c(res):
    c = counts(res.outcomes)
    return c["total"], c["killed"] + c["timeout"], c["undecided"], c["survived"], c["no-coverage"]


def test_a_strong_suite_kills_everything():
    res = _run("mut_all")
    assert _c(res) == (12, 12, 0, 0, 0)


def test_a_suite_that_misses_the_boundary():
    res = _run("mut_basic")
    assert _c(res) == (28, 22, 0, 6, 0)
    survived = {(o.mutant.line, o.mutant.original, o.mutant.replacement) for o in res.outcomes
                if o.status == "survived"}
    assert (7, "<", "<=") in survived          # i < n -> i <= n: no test looks one past the end
    assert (7, "<", ">") not in survived


def test_an_unneeded_barrier_survives_deletion():
    res = _run("mut_barrier", runs=5, operators=["barrier"])
    status = {o.mutant.function: o.status for o in res.outcomes}
    assert status == {"rotate": "killed", "twice": "survived"}


def test_racy_mutant_is_undecided_under_varied_schedules():
    res = _run("mut_racy", runs=5, operators=["atomic"])
    (o,) = res.outcomes
    assert o.status == "undecided"
    k, n = o.kills["hist256"]
    assert 0 < k < n


def test_no_mutant_when_no_test_reaches_it(tmp_path):
    (tmp_path / "k.cu").write_text(
        "#include <cstdio>\n__global__ void never(int *a) { a[threadIdx.x] += 1; }\n"
        "__global__ void once(int *a) { a[0] = 5; }\n"
        "int main(int c, char **v) { int *d; cudaMalloc(&d, 64); if (c > 5) never<<<1, 1>>>(d);\n"
        "  once<<<1, 1>>>(d); int h; cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost); printf(\"%d\\n\", h); }\n")
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["k.cu"]\n[[test]]\nname = "t"\n')
    res = engine.run(suite_mod.load(tmp_path), "cpu", None, runs=2, progress=False)
    by_fn = {}
    for o in res.outcomes:
        by_fn.setdefault(o.mutant.function, set()).add(o.status)
    assert by_fn["never"] == {"no-coverage"} and "no-coverage" not in by_fn["once"]


STRYKER_SCHEMA = {   # the parts of mutation-testing-report-schema that viewers rely on
    "type": "object", "required": ["schemaVersion", "thresholds", "files"],
    "properties": {
        "schemaVersion": {"type": "string", "pattern": "^([1-2])(\\.(([1-9]\\d*)|0)){0,2}$"},
        "thresholds": {"type": "object", "required": ["high", "low"]},
        "files": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["language", "source", "mutants"],
            "properties": {"mutants": {"type": "array", "items": {
                "type": "object", "required": ["id", "mutatorName", "location", "status"],
                "properties": {"status": {"enum": ["Killed", "Survived", "NoCoverage", "CompileError",
                                                   "RuntimeError", "Timeout", "Ignored", "Pending"]},
                               "location": {"type": "object", "required": ["start", "end"]}}}}}}},
    },
}


def test_cli_reports(run_cli, tmp_path):
    r = run_cli("cltestcheck.cli", "mutate", "--suite", SUITES / "mut_racy", "--backend", "cpu", "--runs", "4",
                "-j", "2", "--json", tmp_path / "m.json", "--stryker", tmp_path / "s.json", "--html", tmp_path / "h",
                "--results", tmp_path / "rows.csv", "--break", "0", "-v", "--junit", tmp_path / "j.xml")
    assert r.returncode == 0, r.stderr
    assert "Undecided (killed in some runs only" in r.stdout and "hist.cu:8" in r.stdout
    # -v: the reference runs, and every mutant killed, with why
    assert "  hist256: reached 7 mutation site(s)" in r.stdout and "[hist256: crashed with SIGFPE]" in r.stdout
    # JUnit: a case per mutant, survived and undecided the failures
    import xml.etree.ElementTree as ET
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    kinds = sorted(f.get("type") for f in suite.iter("failure"))
    assert suite.get("tests") == "22" and suite.get("failures") == str(len(kinds)) and suite.get("errors") == "0"
    assert set(kinds) == {"cltc/survived", "cltc/undecided"}
    ours = json.loads((tmp_path / "m.json").read_text())
    assert ours["summary"]["undecided"] >= 1 and ours["schemata"]["builds"] == 1
    st = json.loads((tmp_path / "s.json").read_text())
    jsonschema.validate(st, STRYKER_SCHEMA)
    mutants = st["files"]["tests/suites/mut_racy/hist.cu"]["mutants"]   # (relative to the git work tree)
    und = [m for m in mutants if m["statusReason"].startswith("undecided")]
    assert und and all(m["status"] == "Survived" for m in und)
    assert (tmp_path / "h" / "index.html").is_file()
    assert st["config"]["thresholds"] == {"high": 80, "low": 60, "break": 0}
    # the same campaign again (its rows resumed, nothing judged again) under a break it cannot reach,
    # its options read from a pyproject.toml found from the current directory upward; the command
    # line wins over the file (--low)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.cltc]\nsuite = "{SUITES / "mut_racy"}"\nbackend = "cpu"\n'
        '[tool.cltc.mutate]\nruns = 4\nresults = "rows.csv"\nbreak = 100\nhigh = 90\nlow = 70\n'
        'stryker = "s2.json"\n')
    (tmp_path / "sub").mkdir()
    r = run_cli("cltestcheck.cli", "mutate", "--low", "75", "-q", cwd=tmp_path / "sub")
    score = ours["summary"]["score"]
    assert r.returncode == 1 and f"cltc mutate: mutation score {score:.1f}% is under --break 100" in r.stderr
    grade = "good" if score >= 90 else "fair" if score >= 75 else "poor"
    assert r.stdout.startswith(f"mutation score {score:.1f}% ({grade}):")   # -q: the score line first, no header
    assert "kernel/function" not in r.stdout and "Undecided (killed in some runs only" in r.stdout
    st = json.loads((tmp_path / "s2.json").read_text())
    assert st["thresholds"] == {"high": 90, "low": 75} and st["config"]["thresholds"]["break"] == 100


def test_list_operators_and_bad_operator(run_cli):
    r = run_cli("cltestcheck.cli", "mutate", "--list-operators")
    assert r.returncode == 0 and "shared-index" in r.stdout and "barrier" in r.stdout
    r = run_cli("cltestcheck.cli", "mutate", "--suite", SUITES / "mut_all", "--operators", "arith,nope")
    assert r.returncode == 2 and "unknown mutation operator(s): arith, nope" in r.stderr


def test_every_operator_compiles_on_the_corpus_with_nvcc(tmp_path, nvcc):
    """Schemata of a shared-memory, atomic and loop-heavy corpus program compile with nvcc."""
    from cltestcheck.mutate.planner import MutationPlanner
    from instrument.backends import BuildRequest
    from instrument.backends.gpu import GpuBackend
    from instrument.compile.pipeline import instrument_sources
    from runtime import include_dir
    for name in ("reduce_shared.cu", "histogram_global_atomics.cu", "scan_blelloch.cu", "warp_vote.cu"):
        p = MutationPlanner(["arithmetic", "relational", "bitwise", "logical", "assignment", "unary", "barrier",
                             "loop", "atomic", "thread-index", "shared-index"])
        instrumented = instrument_sources([CUDA / "corpus" / name], tmp_path / name, [p])
        srcs, incs = instrumented.sources, instrumented.include_dirs
        GpuBackend(arch="sm_80").compile_object(BuildRequest(srcs, tmp_path / (name + ".o"),
                                                             incs + [include_dir()], p.defines()))
        assert p.mutants


TWO_KERNELS = """\
#include <cstdio>
__device__ int twice(int v) { return v * 2; }
__global__ void scale(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = twice(a[i]) + 1;
}
__global__ void shift(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] - 3;
}
int main() {
  int h[40], *d, n = 40;
  for (int i = 0; i < n; i++) h[i] = i;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  scale<<<2, 32>>>(d, n);
  shift<<<2, 32>>>(d, n);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++) printf("%d ", h[i]);
  printf("\\n");
  return 0;
}
"""


def test_after_an_edit_only_changed_functions_mutants_are_judged_again(tmp_path):
    """Incremental mutation: a comment moves every line and `shift` changes; `scale` and its
    callee do not, so their rows are reused (matched by key, not id or line)."""
    import csv
    (tmp_path / "k.cu").write_text(TWO_KERNELS)
    (tmp_path / "cltc.toml").write_text('[build]\nsources = ["k.cu"]\n[[test]]\nname = "t"\n')
    rows = tmp_path / "rows.csv"
    first = engine.run(suite_mod.load(tmp_path), "cpu", None, runs=1, progress=False, results=rows)
    n_first = len(list(csv.DictReader(rows.open())))
    assert n_first == len(first.outcomes) > 0
    edited = "// a comment moves every line\n" + TWO_KERNELS.replace("a[i] - 3", "a[i] - 4")
    (tmp_path / "k.cu").write_text(edited)
    second = engine.run(suite_mod.load(tmp_path), "cpu", None, runs=1, progress=False, results=rows)
    judged = list(csv.DictReader(rows.open()))[n_first:]
    shift_mutants = [o for o in second.outcomes if o.mutant.function == "shift"]
    assert shift_mutants and len(judged) == len(shift_mutants)
    assert {r["key"] for r in judged} == {o.mutant.key for o in shift_mutants}
    before = {(o.mutant.function, o.mutant.line + 1, o.mutant.col, o.mutant.replacement): o.status
              for o in first.outcomes if o.mutant.function != "shift"}
    after = {(o.mutant.function, o.mutant.line, o.mutant.col, o.mutant.replacement): o.status
             for o in second.outcomes if o.mutant.function != "shift"}
    assert after == before and len(after) > 0      # reused, at their new lines
    # an edit of the device function `scale` calls judges scale's mutants again too
    (tmp_path / "k.cu").write_text(edited.replace("return v * 2;", "return v + v;"))
    third = engine.run(suite_mod.load(tmp_path), "cpu", None, runs=1, progress=False, results=rows)
    judged = list(csv.DictReader(rows.open()))[n_first + len(shift_mutants):]
    assert {r["key"] for r in judged} == {o.mutant.key for o in third.outcomes if o.mutant.function != "shift"}
    # host code is the campaign's: an edit there is another campaign, refused without writing
    (tmp_path / "k.cu").write_text(edited.replace("int h[40], *d, n = 40;", "int h[40], *d, n = 39;"))
    size = rows.stat().st_size
    with pytest.raises(UserError, match="holds results of another mutation campaign"):
        engine.run(suite_mod.load(tmp_path), "cpu", None, runs=1, progress=False, results=rows)
    assert rows.stat().st_size == size
