"""indigo-bench: ECLgraph files, graph generators, code labels, tool outcomes, the resumable
sweep on the cpu backend over the miniature Indigo tree, and the Table II / Figure 5 report."""
from __future__ import annotations

import csv
import json
import re
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from indigo_bench import egr, graphs, tools
from indigo_bench.codes import discover, parse_name
from indigo_bench.results import JOURNAL, Journal, Row, load
from instrument.backends.base import RunResult, run_process
from instrument.backends.cpu import CpuBackend
from instrument.errors import UserError

from conftest import ROOT

MINI = ROOT / "examples" / "indigo_mini"
CODES = MINI / "codes"
INCLUDE = MINI / "include"


def _rows(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


# ---------------------------------------------------------------- ECLgraph files and generators

def test_egr_round_trip_and_validation(tmp_path):
    g = graphs.generate(graphs.Spec("dag", 50, 120, 3))
    egr.write(tmp_path / "g.egr", g)
    back = egr.read(tmp_path / "g.egr")
    assert back.nodes == 50 and back.edges == 120
    assert (back.nindex == g.nindex).all() and (back.nlist == g.nlist).all()
    raw = (tmp_path / "g.egr").read_bytes()
    cases = {
        "short.egr": (raw[:6], "too short"),
        "truncated.egr": (raw[:-4], "need 692 bytes"),
        "negative.egr": (struct.pack("<ii", 0, 3), "0 nodes and 3 edges"),
        "badlist.egr": (raw[:-4] + struct.pack("<i", 50), "nlist[119] is 50, not a node"),
        "badindex.egr": (raw[:8] + struct.pack("<i", 1) + raw[12:], "nindex[0] is 1"),
    }
    for name, (data, msg) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(UserError) as e:
            egr.read(tmp_path / name)
        assert name in str(e.value) and msg in str(e.value), str(e.value)


@pytest.mark.parametrize("kind,nodes,edges", [("dag", 200, 400), ("counterdag", 200, 1000),
                                              ("powerlaw", 300, 2000), ("rmat", 1000, 6000), ("grid", 90, None)])
def test_generators_are_seeded_and_well_formed(kind, nodes, edges):
    g = graphs.generate(graphs.Spec(kind, nodes, edges, 5))
    again = graphs.generate(graphs.Spec(kind, nodes, edges, 5))
    other = graphs.generate(graphs.Spec(kind, nodes, edges, 6))
    assert egr.check(g) is None
    assert (g.nlist == again.nlist).all() and (g.nindex == again.nindex).all()
    if kind != "grid":
        assert g.edges == edges and not np.array_equal(g.nlist, other.nlist)
    src = np.repeat(np.arange(nodes), g.degrees())
    pairs = set(zip(src.tolist(), g.nlist.tolist()))
    assert len(pairs) == g.edges, "repeated edges"
    assert all(a != b for a, b in pairs), "self loops"
    if kind == "dag":
        assert all(a < b for a, b in pairs)
    if kind == "counterdag":
        assert all(a > b for a, b in pairs)
    if kind in ("powerlaw", "grid"):
        assert all((b, a) in pairs for a, b in pairs)
    if kind == "grid":
        assert g.edges == 2 * (9 * 9 + 10 * 8)   # 90 nodes, width 9: 10 rows of 9


def test_power_law_graph_has_hubs():
    g = graphs.generate(graphs.Spec("powerlaw", 2000, 16000, 1))
    assert g.degrees().max() > 8 * g.degrees().mean()


def test_generator_errors():
    with pytest.raises(UserError, match="at most 10 edges"):
        graphs.generate(graphs.Spec("dag", 5, 11))
    with pytest.raises(UserError, match="must be even"):
        graphs.generate(graphs.Spec("powerlaw", 10, 7))
    with pytest.raises(UserError, match="has 24 edges, not 10"):
        graphs.generate(graphs.Spec("grid", 9, 10))
    with pytest.raises(UserError, match="--edges is needed"):
        graphs.generate(graphs.Spec("rmat", 9, None))


def test_graphs_command(run_cli, tmp_path):
    r = run_cli("indigo_bench.cli", "graphs", "--small", "-o", tmp_path / "small")
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in (tmp_path / "small").iterdir())
    assert names == sorted(s.file_name() for s in graphs.SMALL)
    g = egr.read(tmp_path / "small" / "counterDAG_200n_1000e.egr")
    assert (g.nodes, g.edges) == (200, 1000)
    r = run_cli("indigo_bench.cli", "graphs", "--kind", "rmat", "--nodes", "4096", "--edges", "30000",
                "--seed", "2", "-o", tmp_path / "r.egr")
    assert r.returncode == 0 and "4096 nodes, 30000 edges" in r.stdout
    r = run_cli("indigo_bench.cli", "graphs", "--kind", "grid", "--nodes", "9", "--edges", "3", "-o", tmp_path / "x.egr")
    assert r.returncode == 2 and "has 24 edges" in r.stderr and not (tmp_path / "x.egr").exists()


# ---------------------------------------------------------------- codes and their labels

def test_tags_and_labels_from_names():
    assert parse_name("conditional_edge_neighbor_persistent_cond_guardBug_atomicBug", "conditional_edge_neighbor") == \
        (("persistent", "cond", "guardBug", "atomicBug"), ("guardBug", "atomicBug"))
    assert parse_name("push_neighbors", "push_neighbors") == ((), ())
    assert parse_name("other_name_syncBug", "folder") == (("syncBug",), ("syncBug",))


def test_miniature_tree_labels():
    codes, warnings = discover(CODES)
    assert not warnings and len(codes) == 15
    racy = sorted(c.name for c in codes if c.racy)
    assert racy == ["block_max_persistent_syncBug", "block_max_syncBug", "max_reduce_atomicBug",
                    "max_reduce_boundsBug_guardBug", "max_reduce_guardBug", "pull_min_raceBug",
                    "push_neighbors_atomicBug", "push_neighbors_persistent_atomicBug"]
    bounds = next(c for c in codes if c.name == "max_reduce_boundsBug")
    assert bounds.label == "race-free" and bounds.pattern == "max_reduce" and bounds.bugs == ("boundsBug",)


def test_discover_warns_and_refuses(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "a_fooBug.cu").write_text("")
    codes, warnings = discover(tmp_path)
    assert not codes[0].racy and "unknown bug tag(s) fooBug" in warnings[0]
    (tmp_path / "b" / "a_fooBug.cu").write_text("")
    with pytest.raises(UserError, match="two codes are named a_fooBug"):
        discover(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="no .cu files"):
        discover(tmp_path / "empty")
    with pytest.raises(UserError, match="not a directory"):
        discover(tmp_path / "missing")


# ---------------------------------------------------------------- tool outcomes

def _res(out="", err="", code=0, timed_out=False):
    return RunResult(code, out, err, 0.5, timed_out, 2048)


def test_sequential_and_racecheck_outcomes():
    cpu = CpuBackend()
    assert tools.sequential(_res("result matches serial code\n"), cpu).verdict == "no race"
    o = tools.sequential(_res("result differs from serial code\n"), cpu)
    assert (o.verdict, o.races, o.serial_check, o.peak_mem_mib) == ("race", 1, "differs", 2.0)
    assert tools.sequential(_res("", "segfault", -11), cpu).note == "crashed with SIGSEGV"
    o = tools.sequential(_res("", "cudaemu: barrier divergence at x.cu:3", 86), cpu)
    assert o.verdict == "error" and "barrier divergence" in o.note
    cs = ("========= Error: Race reported between Write access at k(int*)+0x90 in x.cu:12\n"
          "=========     and Read access at k(int*)+0xb0 in x.cu:14 [1016 hazards]\n"
          "========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n")
    o = tools.racecheck(_res("result matches serial code\n", cs), cpu)
    assert (o.verdict, o.races) == ("race", 2)
    o = tools.racecheck(_res("", "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"), cpu)
    assert (o.verdict, o.races) == ("no race", 0)
    assert tools.racecheck(_res("", "", 1), cpu).verdict == "error"
    assert "gpu backend" in tools.unavailable("racecheck", cpu)


def test_peak_memory_is_the_programs_own():
    small = run_process(["true"], measure_memory=True)
    big = run_process([sys.executable, "-c", "x = bytearray(200_000_000); x[::4096] = b'1' * len(x[::4096])"],
                      measure_memory=True)
    assert small.peak_rss_kib is not None and small.peak_rss_kib < 20_000
    assert big.peak_rss_kib > 190_000


# ---------------------------------------------------------------- results journal

def _row(code="c", graph="g.egr", tool="hirace", verdict="race"):
    return Row(code, "p", "", "racy", graph, tool, "cpu", 32, 4, verdict, "1", "matches", 0, 0.1, "3.0", "")


def test_journal_is_resumable_after_a_torn_line(tmp_path):
    j = Journal(tmp_path)
    j.add(_row("a"))
    j.add(_row("b"))
    j.close()
    with open(tmp_path / JOURNAL, "a") as fh:
        fh.write("c,p,,racy,g.egr,hir")          # killed mid-write
    assert sorted(r.code for r in load(tmp_path)) == ["a", "b"]
    j = Journal(tmp_path)
    j.add(_row("a", verdict="no race"))            # a rerun's row replaces the older one
    j.close()
    rows = {r.code: r for r in load(tmp_path)}
    assert sorted(rows) == ["a", "b"] and rows["a"].verdict == "no race"
    assert (tmp_path / JOURNAL).read_text().count("\n") == 4


# ---------------------------------------------------------------- the sweep, end to end on the cpu backend

SWEEP = ["sweep", "--codes", CODES, "--include", INCLUDE, "--backend", "cpu", "--tpb", "32", "--blocks", "256",
         "-j", "2", "--no-progress"]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    from indigo_bench.cli import main
    d = tmp_path_factory.mktemp("sweep")
    g = d / "graphs"
    for spec in (graphs.SMALL[1], graphs.SMALL[4]):     # DAG_100n_200e, counterDAG_200n_1000e
        egr.write(g / spec.file_name(), graphs.generate(spec))
    out = d / "out"
    rc = main([str(a) for a in SWEEP + ["--graphs", g, "--out", out]])
    assert rc == 0
    return d, g, out


def test_sweep_rows(swept):
    _d, _g, out = swept
    rows = _rows(out / JOURNAL)
    assert len(rows) == 15 * 2 * 2        # codes x graphs x (hirace, sequential); racecheck needs a GPU
    assert {r["tool"] for r in rows} == {"hirace", "sequential"}
    assert all(r["verdict"] in ("race", "no race") for r in rows), [r for r in rows if r["verdict"] == "error"]
    assert all(0 < float(r["peak_mem_mib"]) < 2000 and float(r["wall_s"]) > 0 for r in rows)
    hir = {(r["code"], r["graph"]): r for r in rows if r["tool"] == "hirace"}
    # hirace: every exercised race, no false alarm; its instrumented run prints the same check line
    for (code, graph), r in hir.items():
        if r["label"] == "race-free":
            assert r["verdict"] == "no race", r
    seq = {(r["code"], r["graph"]): r for r in rows if r["tool"] == "sequential"}
    for key, r in hir.items():
        assert r["serial_check"] == seq[key]["serial_check"], key
    missed = sorted(k for k, r in hir.items() if r["label"] == "racy" and r["verdict"] == "no race")
    # on a counter-DAG no edge leads to a higher node: max_reduce's racy update never runs there
    assert missed == [("max_reduce_atomicBug", "counterDAG_200n_1000e.egr"),
                      ("max_reduce_guardBug", "counterDAG_200n_1000e.egr")]
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["backend"] == "cpu" and "racecheck not run" in meta["notes"][0]


def test_report_table2_and_slowdown_plot(swept, run_cli):
    _d, _g, out = swept
    r = run_cli("indigo_bench.cli", "report", "--out", out)
    assert r.returncode == 0, r.stderr
    assert "Table II" in r.stdout and "racecheck not run" in r.stdout
    t2 = {(row["graph"], row["tool"]): row for row in _rows(out / "table2.csv")}
    h = t2[("all graphs", "hirace")]
    assert (h["racy"], h["race_free"], h["found"], h["missed"], h["false_alarms"], h["error"]) == \
        ("16", "14", "14", "2", "0", "0")
    dag = t2[("DAG_100n_200e.egr", "hirace")]
    assert (dag["found"], dag["missed"], dag["false_alarms"]) == ("8", "0", "0")
    s = t2[("all graphs", "sequential")]
    assert int(s["found"]) + int(s["missed"]) == 16 and int(s["found"]) < 16
    assert (out / "slowdown.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    sd = _rows(out / "slowdown.csv")
    assert len(sd) == 30 and all(float(x["slowdown"]) > 0 for x in sd)
    assert "slowdown of hirace over the plain run: median" in r.stdout
    bd = {(x["tool"], x["by"], x["group"]): x for x in _rows(out / "breakdown.csv")}
    assert bd[("hirace", "tag", "syncBug")]["found"] == "4"
    assert bd[("hirace", "pattern", "block_max")]["racy"] == "4"


def test_rerun_skips_finished_rows_and_redoes_lost_ones(swept, run_cli):
    _d, g, out = swept
    before = _rows(out / JOURNAL)
    r = run_cli("indigo_bench.cli", *SWEEP, "--graphs", g, "--out", out)
    assert r.returncode == 0 and "0 runs to do, 60 already" in r.stderr
    # lose the last three rows (one torn), as a killed sweep would
    text = (out / JOURNAL).read_text().splitlines(keepends=True)
    (out / JOURNAL).write_text("".join(text[:-3]) + text[-3][:10])
    r = run_cli("indigo_bench.cli", *SWEEP, "--graphs", g, "--out", out, "--tools", "hirace,sequential")
    assert r.returncode == 0 and "3 runs to do, 57 already" in r.stderr, r.stderr
    after = _rows(out / JOURNAL)
    key = lambda x: (x["code"], x["graph"], x["tool"])  # noqa: E731
    assert sorted(map(key, after)) == sorted(map(key, before))
    assert {key(x): x["verdict"] for x in after} == {key(x): x["verdict"] for x in before}


def test_sweep_on_two_dask_workers_gives_the_local_rows_after_a_worker_is_killed(swept, tmp_path, with_killer, tidy):
    """4 codes (block_max: two racy, two race-free) x 1 graph x 2 tools on a 2-worker LocalCluster,
    one worker SIGKILLed mid-run: the same rows as the local sweep of the fixture (timings and
    memory aside). (The builds are the cost: four codes leave five of the eight rows to run when
    the kill comes.)"""
    pytest.importorskip("distributed", reason="needs dask[distributed] (the test extra installs it)")
    import shutil
    from indigo_bench import sweep
    _d, g, local_out = swept
    codes = tmp_path / "codes"
    shutil.copytree(CODES / "block_max", codes / "block_max")
    graph = g / graphs.SMALL[1].file_name()
    # a kill that lands just after the worker's task was reported, or a sweep that ends before the
    # killer sees a worker inside a task, leaves nothing to retry: try again (at most four times)
    for attempt in range(4):
        out = tmp_path / f"dask{attempt}"
        settings = sweep.Settings(codes=codes, graphs=[graph], out=out, include=[INCLUDE],
                                  tools=["hirace", "sequential"], backend="cpu", tpb=32, blocks=256, jobs=2,
                                  progress=False, dask="local")
        res, killed = with_killer(out / JOURNAL, 3, lambda: sweep.run(settings))
        if killed and res.stats.retried >= 1:
            break
    assert killed, "four tries, and no kill interrupted a task"
    assert res.ran == 8 and res.errors == 0 and res.stats.retried >= 1 and res.stats.failed == 0, res.stats
    # each of the 8 builds is made once on this host; a worker killed after making one takes the
    # report of it along, and the retry finds it made
    assert res.stats.workers == 2 and res.stats.builds >= 8 - res.stats.retried
    names = {p.stem for p in codes.rglob("*.cu")}
    want = [r for r in _rows(local_out / JOURNAL) if r["code"] in names and r["graph"] == graph.name]
    assert len(want) == 8 and tidy(_rows(out / JOURNAL)) == tidy(want)
    assert {r["verdict"] for r in want} == {"race", "no race"}
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["execution"]["retried"] >= 1 and meta["execution"]["executor"].startswith("dask LocalCluster")


def test_parquet_results(swept, tmp_path):
    pytest.importorskip("pyarrow", reason="Parquet output needs pyarrow (the test extra installs it)")
    import pandas as pd
    from indigo_bench import results
    _d, _g, out = swept
    path = results.write_parquet(tmp_path, load(out))
    df = pd.read_parquet(path)
    assert len(df) == 60 and df["wall_s"].dtype.kind == "f" and set(df["tool"]) == {"hirace", "sequential"}
    assert len(load(tmp_path)) == 60      # a folder holding only the Parquet file reads back


def test_bad_graph_is_an_error_naming_it_and_writes_nothing(run_cli, tmp_path):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "broken.egr").write_bytes(b"\x03\x00\x00\x00\x02\x00\x00\x00")
    r = run_cli("indigo_bench.cli", *SWEEP, "--graphs", tmp_path / "g", "--out", tmp_path / "out")
    assert r.returncode == 2 and "broken.egr" in r.stderr and "need 32 bytes" in r.stderr
    assert not (tmp_path / "out").exists()


def test_codes_that_fail_become_error_rows(run_cli, tmp_path):
    codes = tmp_path / "codes" / "odd"
    codes.mkdir(parents=True)
    head = 'typedef int data_t;\n#include "indigo_cuda.h"\n'
    tail = ("void serial_code(int* a, int* b, data_t* c, data_t* d, int n) {}\n"
            "int verify_result(int* a, int* b, data_t* c, data_t* d, data_t* e, data_t* f, int n, int m, int x, int y)"
            " { return 1; }\n")
    (codes / "odd_broken.cu").write_text(head + "__global__ void test_kernel(int* a) { syntax error }\n")
    (codes / "odd_hang.cu").write_text(head + "__global__ void test_kernel(int* nindex, int* nlist, data_t* d1, "
                                       "data_t* d2, int n) { while (*(volatile data_t*)&d1[0] >= 0) { } }\n" + tail)
    egr.write(tmp_path / "g.egr", graphs.generate(graphs.SMALL[0]))
    r = run_cli("indigo_bench.cli", "sweep", "--codes", tmp_path / "codes", "--include", INCLUDE, "--graphs",
                tmp_path / "g.egr", "--backend", "cpu", "--tpb", "2", "--blocks", "1", "--timeout", "3",
                "--no-progress", "-v", "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert re.search(r"^indigo-bench: odd_broken x \S+\.egr x hirace: error \([\d.]+s\): ", r.stderr, re.M)   # (-v)
    rows = {(x["code"], x["tool"]): x for x in _rows(tmp_path / "out" / JOURNAL)}
    assert len(rows) == 4 and all(x["verdict"] == "error" for x in rows.values())
    assert rows[("odd_broken", "sequential")]["note"].startswith("build failed")
    assert "odd_broken.cu:3" in rows[("odd_broken", "hirace")]["note"]
    assert "timed out" in rows[("odd_hang", "hirace")]["note"]
    r = run_cli("indigo_bench.cli", "report", "--out", tmp_path / "out", "--no-plot")
    assert r.returncode == 0 and " err" in r.stdout and "tables: " in r.stdout
    q = run_cli("indigo_bench.cli", "report", "--out", tmp_path / "out", "--no-plot", "-q")
    assert q.returncode == 0 and q.stdout == r.stdout[:r.stdout.index("tables: ")]   # (-q: the tables only)


def test_sweep_sharing_one_context_gives_the_rows_of_a_process_per_row(swept, tmp_path):
    """--share-context: each worker's rows run in a row host, the codes built as libraries; the
    verdicts, race counts, check lines and exit statuses are those of the process-per-row sweep
    (race-free, racy in shared memory, racy in global memory and missed on the counter-DAG, and an
    out-of-bounds code: one of each; the library builds are the cost)."""
    from indigo_bench.cli import main
    _d, g, out = swept
    picked = ["block_max/block_max.cu", "block_max/block_max_syncBug.cu", "max_reduce/max_reduce_atomicBug.cu",
              "max_reduce/max_reduce_boundsBug.cu"]
    codes = tmp_path / "codes"
    for rel in picked:
        (codes / rel).parent.mkdir(parents=True, exist_ok=True)
        (codes / rel).write_bytes((CODES / rel).read_bytes())
    shared = tmp_path / "shared"
    args = ["sweep", "--codes", codes, "--include", INCLUDE, "--backend", "cpu", "--tpb", "32", "--blocks", "256",
            "-j", "2", "--no-progress", "--share-context", "--graphs", g, "--out", shared]
    assert main([str(a) for a in args]) == 0
    same = ("verdict", "races", "serial_check", "exit_status", "note")
    alone = {(r["code"], r["graph"], r["tool"]): [r[c] for c in same] for r in _rows(out / JOURNAL)}
    rows = _rows(shared / JOURNAL)
    assert len(rows) == len(picked) * 2 * 2
    for r in rows:
        assert [r[c] for c in same] == alone[(r["code"], r["graph"], r["tool"])], r
    assert {r["verdict"] for r in rows} == {"race", "no race"}
    assert all(float(r["peak_mem_mib"]) > 0 for r in rows)
    assert json.loads((shared / "sweep.json").read_text())["share_context"] is True
