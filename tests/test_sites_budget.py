"""The prior-site slots' memory budget (runtime hirace/host_site_budget.h, HIRACE_SITES_BUDGET): a buffer
keeps slots only while hirace's state stays within the budget; a race found without them asks for them, so
the next launch that races there names both accesses."""
from __future__ import annotations

import pytest
from conftest import CUDA

from hirace import runner
from hirace.config import Config
from hirace.report_text import render_race
from hirace.results import collect
from instrument import logs
from instrument.backends.cpu import CpuBackend
from instrument.protocol import HIRACE_LOG, Env

PROGRAM = CUDA / "engine" / "sites_budget.cu"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return runner.build([PROGRAM], CpuBackend(), tmp_path_factory.mktemp("budget") / "b", Config())


def _run(built, tmp_path, mode, budget=None):
    log = tmp_path / f"{mode}{budget}.jsonl"
    env = {Env.HIRACE_LOG: str(log)}
    if budget is not None:
        env[Env.HIRACE_SITES_BUDGET] = str(budget)
    r = built.backend.run(built.exe, [mode], env=env)
    assert r.returncode == 0, r.stderr
    got = logs.read(log, HIRACE_LOG, "hirace's log")
    report = collect(log, built.sites)
    races = [(x.launch, x.site.line, x.prior_site.line if x.prior_site else None, x.prior_budgeted)
             for x in report.races]
    return races, {b.name: b.budgeted for b in got["buffer"]}, got["end"][0], report


def test_a_buffer_written_in_place_names_the_earlier_site_from_the_launch_after_its_first_race(built, tmp_path):
    races, budgeted, _, report = _run(built, tmp_path, "inplace")
    assert races == [(0, 13, None, True), (1, 13, 14, False)]
    assert budgeted == {"&a": 1}
    assert "for hirace's memory budget" in render_race(report.races[0])
    # no budget: every launch names both
    races, budgeted, _, _ = _run(built, tmp_path, "inplace", budget=0)
    assert races == [(0, 13, 14, False), (1, 13, 14, False)]
    assert budgeted == {"&a": 0}


def test_a_shadow_that_does_not_fit_beside_the_slots_takes_them(built, tmp_path):
    """a and b get slots (within 2x the program's 3 MiB); c's shadow (4 MiB) takes them: a's race in
    launch 3 names no earlier site, and asks for the slots again, so launch 4 names it."""
    races, budgeted, _, _ = _run(built, tmp_path, "evict")
    assert races == [(0, 13, 14, False), (3, 13, None, True), (4, 13, 14, False)]
    assert budgeted == {"&a": 1, "&b": 1, "&c": 1}


def test_a_clean_program_keeps_its_state_within_the_budget(built, tmp_path):
    """a (4 MiB) written in place without a race: its shadow (8 MiB) and no slots; with no budget its slots
    too (16 MiB). (hirace's other memory is the same in both runs.)"""
    _, budgeted, end, _ = _run(built, tmp_path, "clean")
    _, _, unlimited, _ = _run(built, tmp_path, "clean", budget=0)
    assert budgeted == {"&a": 1}
    assert end.user_bytes == unlimited.user_bytes == 4 << 20
    assert 16 << 20 <= unlimited.tool_bytes - end.tool_bytes < 17 << 20
