"""hirace's race and out-of-bounds logs (device_log.h log_record): one record per key with every access
it folds counted, at most max_reports records, the rest counted as dropped, never lost silently."""
from __future__ import annotations

import pytest

from hirace import runner
from hirace.config import Config

from conftest import CUDA

PROGRAM = CUDA / "engine" / "many_records.cu"


def _run(max_reports: int):
    res = runner.run([PROGRAM], "cpu", Config(max_reports=max_reports), timeout=120)
    assert res.program_exit == 0
    return res


@pytest.fixture(scope="module")
def full():
    return _run(1024)


def test_every_racing_site_is_one_record_counting_each_word(full):
    assert sorted((r.site.line, r.count) for r in full.races) == [(line, 8) for line in range(6, 12)]
    assert full.dropped == 0


def test_one_site_past_two_buffers_is_one_record_per_buffer_with_every_access(full):
    got = sorted((m.site.line, m.buffer, m.count) for m in full.memory_errors)
    assert got == [(15, "b", 64), (15, "c", 64)]


@pytest.mark.parametrize("cap", [1, 4])
def test_records_past_max_reports_are_dropped_and_counted(full, cap):
    res = _run(cap)
    counts = {r.site.line: r.count for r in full.races}
    kept = {r.site.line: r.count for r in res.races}
    assert len(kept) == cap
    assert all(counts[line] == n for line, n in kept.items())          # a kept record misses nothing
    assert res.dropped == sum(counts.values()) - sum(kept.values())    # nor does the count of the rest
    assert len(res.memory_errors) == min(cap, 2)


# Bounds-only sites (reads of a shared array nothing writes in their interval, atomics where every
# access is one) check only bounds inline and log an access outside them through the whole check:
# one record per site with every access counted, and the cap over the records of one read-back.
BOUNDS_ONLY = CUDA / "memory" / "bounds_only_sites.cu"
SEVERAL = {36: 1, 37: 2, 38: 3}   # the three sites of its one launch of `several`


def test_bounds_only_sites_keep_the_cap_of_the_log(monkeypatch):
    """(their counts without a cap: tests/test_hirace_memory.py)"""
    cap = 2
    res = runner.run([BOUNDS_ONLY], "cpu", Config(max_reports=cap), timeout=120)
    assert res.program_exit == 0
    got = [(m.site.line, m.count) for m in res.memory_errors]
    assert got[:3] == [(11, 96), (18, 24), (25, 408)]   # one launch each, read back apart
    kept = dict(got[3:])
    assert len(kept) == cap and all(SEVERAL[line] == n for line, n in kept.items())   # kept ones miss nothing
    dropped = sum(SEVERAL.values()) - sum(kept.values())                                # nor does the warning
    # (`several`'s reads lie inside their arrays only in blocks narrower than its 32 threads
    # (hirace/proofs/bounds.py): its launch breaks that condition, so the kernel itself runs, not its
    # quiet version, and the cap alone drops records; a version's own warning: tests/test_quiet_version.py)
    assert [w for w in res.warnings if "out-of-bounds records" in w] == \
        [f"{dropped} out-of-bounds records were dropped (more sites than max_reports)"]
    monkeypatch.setenv("HIRACE_QUIET_VERSIONS", "0")   # the same without versions
    again = runner.run([BOUNDS_ONLY], "cpu", Config(max_reports=cap), timeout=120)
    assert again.warnings == res.warnings and [(m.site.line, m.count) for m in again.memory_errors] == got
