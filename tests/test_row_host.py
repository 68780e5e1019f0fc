"""The row host (instrument/compile/row_host.py): programs built as libraries, run one after another in one
process, each starting as a new process would, on the cpu backend."""
from __future__ import annotations

from pathlib import Path

import pytest

from instrument.compile import pipeline, row_host
from instrument.backends import get_backend

from conftest import ROOT

STATE = ROOT / "tests" / "cuda" / "engine" / "row_state.cu"
FIRST = "device 8 calls 1 init 7 rand 383 cwd {cwd} umask 022 usr1 default mark {mark} pi 3.14159\n"


@pytest.fixture(scope="module")
def state_lib(tmp_path_factory):
    backend = get_backend("cpu")
    work = tmp_path_factory.mktemp("row_state")
    return backend, pipeline.build([STATE], backend, work, library=True).exe


def test_every_row_starts_as_a_new_process(state_lib, tmp_path):
    backend, lib = state_lib
    host = row_host.RowHost(backend)
    try:
        seen = []
        for how, env in (("return", {"ROW_MARK": "a"}), ("exit", {}), ("return", {"ROW_MARK": "b"})):
            r = host.run(lib, [how], env=env, cwd=tmp_path)
            seen.append((r.returncode, r.stdout))
            assert r.peak_rss_kib and r.peak_rss_kib > 0
        assert seen == [(3, FIRST.format(cwd=tmp_path.name, mark="a")),
                        (5, FIRST.format(cwd=tmp_path.name, mark="unset")),
                        (3, FIRST.format(cwd=tmp_path.name, mark="b"))]
        assert host.starts == 1 and host.rows == 3
    finally:
        host.close()


def test_a_row_that_ends_the_host_is_its_own_result_and_the_next_starts_another(state_lib, tmp_path):
    backend, lib = state_lib
    host = row_host.RowHost(backend)
    try:
        r = host.run(lib, ["abort"], cwd=tmp_path)
        assert r.returncode == -6 and r.stdout.startswith("device 8 calls 1") and not r.timed_out
        r = host.run(lib, ["hang"], cwd=tmp_path, timeout=1.5)
        assert r.timed_out and r.returncode < 0 and 1.4 < r.wall_s < 10
        r = host.run(lib, ["return"], cwd=tmp_path)
        assert (r.returncode, r.stdout) == (3, FIRST.format(cwd=tmp_path.name, mark="unset"))
        assert host.starts == 3
    finally:
        host.close()
    assert host.proc is None


def test_backend_run_sends_a_library_to_the_threads_host_and_a_missing_one_fails(state_lib, tmp_path):
    backend, lib = state_lib
    r = backend.run(lib, ["return"], cwd=tmp_path)
    assert r.returncode == 3 and "calls 1" in r.stdout
    assert row_host.host(backend).rows >= 1
    r = backend.run(tmp_path / "absent.so", [], cwd=tmp_path)
    assert r.returncode == 127 and "cannot load" in r.stderr


def test_hirace_reports_the_same_races_from_a_library(tmp_path):
    from hirace import runner
    from hirace.config import Config
    backend = get_backend("cpu")
    src = ROOT / "examples" / "reduce_race.cu"
    found = []
    for library in (False, True, True):
        built = runner.build([src], backend, tmp_path / f"b{len(found)}", Config(), library=library)
        res, races = runner.execute(built, Config(), [], 120, cwd=tmp_path)
        assert races is not None, res.stderr
        found.append((res.returncode, res.stdout, sorted((r.site.line, r.prior_site.line if r.prior_site else 0) for r in races.races)))
    assert found[0] == found[1] == found[2] and found[0][2]
