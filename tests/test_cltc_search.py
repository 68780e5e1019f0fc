"""cltc search on the cpu backend: a thin suite of our own whose feasible missed items a small budget
reaches (an equality only the distance-guided step reaches, a NaN its test never printed) and whose
infeasible arm stays listed; a loop case only the loop condition's distance leads to; two Indigo-style
codes of our own whose racy line a 5-node graph never reaches (a hub's push, a push along a back edge),
found racy from that seed by --check races, and their race-free twins found clean; the same seed
making the same tests, a journal resuming a search, and an --out that is a file refused. Tiny programs,
small budgets, fixed seeds: the whole file runs in about 40 s on 2 cores (80 s shared with other work)."""
from __future__ import annotations

import json
import os
import re
import threading
import tomllib

import pytest

from cltestcheck import cli
from cltestcheck.search import loop
from cltestcheck.search.journal import JOURNAL
from cltestcheck.suite import load

from conftest import ROOT

SUITES = ROOT / "tests" / "suites"
THIN = SUITES / "search_thin"


@pytest.fixture(scope="module")
def build_cache(tmp_path_factory):
    """The module's searches of one program share its build (instrument/compile/build_cache.py)."""
    old = os.environ.get("CCTK_BUILD_CACHE")
    os.environ["CCTK_BUILD_CACHE"] = str(tmp_path_factory.mktemp("build-cache"))
    yield
    os.environ["CCTK_BUILD_CACHE"] = old if old is not None else "off"


@pytest.fixture(scope="module")
def thin(tmp_path_factory, build_cache):
    out = tmp_path_factory.mktemp("thin") / "found"
    res = loop.run(load(THIN), out, "cpu", seed=0, budget_runs=60, progress=False, cache=True)
    return res, out


def _labels(res, keys) -> set[str]:
    by_key = {g.key: g for g in res.goals}
    return {f"{by_key[k].line}: {by_key[k].label}" for k in keys if k in by_key}


def test_the_search_reaches_every_feasible_item_the_thin_suite_missed(thin):
    res, out = thin
    missed = {"12: if (rounds > 2): then", "13: if (rounds < 0): then",
              "14: for (int k = 0; k < rounds; ++k): body 0 times",
              "14: for (int k = 0; k < rounds; ++k): body more than once", "15: if (key == 4242): then"}
    assert missed.isdisjoint(_labels(res, res.seed_reached))
    found = _labels(res, {k for k, who in res.reached_by.items() if who.startswith("search-")})
    assert missed <= found, found
    # the infeasible arm (a remainder of 4 is at most 3) stays, with how close a run came to it
    [left] = res.unreached()
    assert (left.line, left.label) == (17, "if (r > 3): then") and res.closest[left.key][0] == 1
    # `key == 4242` from a key of 5: the distance-guided step (a key no havoc change makes)
    [k4242] = [k for k in res.kept if any(":15: " in a for a in k.adds)]
    assert "4242" in k4242.inp.args and "(distance" in k4242.inp.how[-1]
    # each kept input names the generated run that found it: every feasible item within the 60 runs' budget
    runs = [k.run for k in res.kept]
    assert runs == sorted(set(runs)) and 1 <= runs[0] and runs[-1] <= 60, runs
    # rounds 0 prints nan (0 / 0.0), which the test (rounds 1) did not: a finding
    [nan] = res.specials
    assert nan["kind"] == "nan" and nan["seed"] == "one-round" and res.findings == 1
    # the kept inputs are a suite in the suite's own format, each test naming what it adds
    written = load(out)
    assert [t.name for t in written.tests] == [k.name for k in res.kept]
    assert [t.args for t in written.tests] == [list(k.inp.args) for k in res.kept]
    text = (out / "cltc.toml").read_text()
    assert "# adds: tests/suites/search_thin/thin.cu:15: [thin] if (key == 4242): then" in text
    assert tomllib.loads(text)["build"]["sources"] == [os.path.relpath(THIN / "thin.cu", out)]


def test_a_seed_makes_the_same_tests_and_a_journal_resumes_the_search(thin, tmp_path, build_cache):
    res, out = thin
    again = tmp_path / "again"
    half = loop.run(load(THIN), again, "cpu", seed=0, budget_runs=30, progress=False, cache=True)
    assert half.runs == 30 and len(half.kept) < len(res.kept)
    rows = (again / JOURNAL).read_text().splitlines()
    (again / JOURNAL).write_text("\n".join(rows[:-3]) + "\n" + rows[-3][:20])   # killed mid-write
    whole = loop.run(load(THIN), again, "cpu", seed=0, budget_runs=60, progress=False, cache=True)
    assert whole.replayed == 27 and whole.runs == 60
    assert (again / "cltc.toml").read_text() == (out / "cltc.toml").read_text()
    assert [k.inp.digest for k in whole.kept] == [k.inp.digest for k in res.kept]


def _racy_and_twin(name: str, tmp_path):
    """The searches of SUITES/NAME and SUITES/NAME_twin with --check races, at once (each waits on its builds)."""
    codes = {"racy": SUITES / name, "twin": SUITES / f"{name}_twin"}
    got = {}

    def search(which):
        got[which] = loop.run(load(codes[which]), tmp_path / which, "cpu", seed=0, budget_runs=24, check_races=True,
                              progress=False)
    threads = [threading.Thread(target=search, args=(n,)) for n in codes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(got) == set(codes)   # (a search that raised: its thread said why above)
    return got["racy"], got["twin"]


def test_search_checks_races_on_the_inputs_it_finds_and_none_on_the_twin(tmp_path, capsys):
    """From a 5-node DAG (no node has more than 4 neighbours) the racy hub push never runs; the search
    grows a graph with a hub, keeps it (a new arm), and hirace finds the race on it; the twin, whose
    push is atomic, shows none on the same inputs. (Both searches at once: each waits on its builds.)"""
    racy, twin = _racy_and_twin("search_hub", tmp_path)
    assert racy.races and all(r["input"].startswith("search-") and r["seed"] == "dag5" for r in racy.races)
    assert {r["kind"] for r in racy.races} >= {"atomic-plain"}
    assert any(r["site"].endswith("push_hub_raceBug.cu:23:9") or r["prior"].endswith("push_hub_raceBug.cu:23:9")
               for r in racy.races)
    shown = next(k for k in racy.kept if k.name == racy.races[0]["input"])
    assert any(":21: [test_kernel] if (end - beg > 4): then" in a for a in shown.adds)
    assert "graph" in " ".join(shown.inp.how) or "nodes" in " ".join(shown.inp.how)
    assert racy.race_checks.get("test 'dag5'") is None and racy.findings == len(racy.races)
    assert twin.kept and not twin.races and twin.findings == 0 and set(twin.race_checks) >= {"test 'dag5'"}
    # the hub's inner loop has more than 4 neighbours to visit: never 0 or 1 times
    assert {g.label.split(": ")[-1] for g in racy.unreached()} == {"body 0 times", "body once"}
    # under GitHub Actions: an error annotation at each race's site, naming the input; a summary
    from cltestcheck import report_github
    from instrument.report_paths import ReportPaths
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(SUITES), "GITHUB_STEP_SUMMARY": str(summary)}
    report_github.search(racy, ReportPaths(SUITES), 1, env)
    err = capsys.readouterr().err
    assert "::error file=search_hub/push_hub_raceBug.cu,line=" in err and f"shown by {racy.races[0]['input']}" in err
    assert summary.read_text().startswith("### cltc search: reached ") and "| not reached |" in summary.read_text()


def test_the_command_line_exit_status_json_and_a_refused_out(tmp_path, capsys, build_cache):
    (tmp_path / "afile").write_text("x")
    assert cli.main(["search", "--suite", str(THIN), "--backend", "cpu", "--out", str(tmp_path / "afile")]) == 2
    assert "--out" in capsys.readouterr().err and (tmp_path / "afile").read_text() == "x"
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "notes.txt").write_text("mine")
    assert cli.main(["search", "--suite", str(THIN), "--backend", "cpu", "--out", str(tmp_path / "theirs")]) == 2
    assert "did not write" in capsys.readouterr().err
    status = cli.main(["search", "--suite", str(THIN), "--backend", "cpu", "--out", str(tmp_path / "o"),
                       "--budget-runs", "8", "--json", str(tmp_path / "s.json"), "-q"])
    text = capsys.readouterr().out
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["tool"] == "cltc search" and doc["runs"]["generated"] == 8
    assert doc["runs"]["last_kept"] == (doc["kept"][-1]["run"] if doc["kept"] else None)
    assert all(1 <= k["run"] <= 8 for k in doc["kept"])
    assert status == (1 if doc["findings"]["nan_inf"] else 0) and text.rstrip().splitlines()[-1].startswith("SEARCH")
    assert {u["label"] for u in doc["unreached"]} >= {"if (r > 3): then"}


def test_a_race_only_a_back_edge_shows_is_found_from_a_dag_and_none_on_its_twin(tmp_path):
    """The suite's 5-node DAG has every edge from a lower to a higher id, so the racy push along a back edge
    never runs on it; a graph change (a cycle, an edge reversed, added nodes, a generated graph) gives one,
    the input is kept for the arm it reaches, and hirace finds the race on it; the atomic twin shows none.
    Nothing else is left to reach: the search stops there."""
    racy, twin = _racy_and_twin("search_backedge", tmp_path)
    assert racy.race_checks.get("test 'dag5'") is None   # (the suite's own test ran under hirace: no race)
    assert racy.races and all(r["input"].startswith("search-") and r["seed"] == "dag5" for r in racy.races)
    assert {r["kind"] for r in racy.races} >= {"atomic-plain"}
    assert all("push_back_raceBug.cu:22:" in r["site"] + r["prior"] for r in racy.races)
    shown = next(k for k in racy.kept if k.name == racy.races[0]["input"])
    assert any(":21: [test_kernel] if (k < i): then" in a for a in shown.adds)
    assert any(h.startswith("dag5.egr: ") and "unchanged" not in h for h in shown.inp.how)
    assert not racy.unreached() and racy.stopped == "every coverage item reached"
    assert twin.kept and not twin.races and twin.findings == 0 and not twin.unreached()
    assert set(twin.race_checks) == {"test 'dag5'", *(k.name for k in twin.kept)}


def test_a_loop_case_only_its_conditions_distance_leads_to_is_reached(tmp_path, build_cache):
    """`for (s = 1; s < width - 1000; s *= 2)` from a width of 1032: once needs a width of exactly 1002,
    which no change of a number makes but a step the loop condition's distance suggests (at the entry's
    second test, s = 2 was width - 1002 from ending the loop)."""
    res = loop.run(load(SUITES / "search_loops"), tmp_path / "found", "cpu", seed=0, budget_runs=40, progress=False,
                   cache=True)
    assert res.loops == 1 and res.stopped == "every coverage item reached" and not res.unreached()
    [once] = [k for k in res.kept if any(a.endswith("s *= 2): body once") for a in k.adds)]
    assert once.inp.args == ("1002",) and re.search(r"-> 1002 \(distance \d+\)$", once.inp.how[-1]), once.inp.how
    assert any(a.endswith("body 0 times") for k in res.kept for a in k.adds)
