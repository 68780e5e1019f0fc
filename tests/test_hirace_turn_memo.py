"""The cpu backend's memo of checks that changed nothing in a thread's turn
(runtime/include/hirace/turn_memo.h): the same races, with the same sites and records, as the check
without it (HIRACE_BENCH_NO_TURN_MEMO=1), on kernels that repeat accesses across what must end what
the memo holds: a warp-level sync (the memo forgets at every step of the thread's clocks; cudaemu also
switches fibers there), the thread's own change of the word through another site (the differential
test fails for a memo that does not compare the word's slots), bins of histograms (no race)."""
from pathlib import Path

import pytest

from hirace import runner
from hirace.config import Config
from instrument.backends.cpu import CpuBackend

from conftest import CUDA

SOURCE = CUDA / "turn_memo" / "repeats.cu"


def _expected(path: Path) -> set[int]:
    return {i for i, line in enumerate(path.read_text().splitlines(), 1) if line.rstrip().endswith("// RACE")}


def _races(tmp_path: Path, defines: list[str]):
    config = Config(prior_sites=True)
    built = runner.build([SOURCE], CpuBackend(), tmp_path, config, [], defines)
    proc, res = runner.execute(built, config, timeout=120)
    assert res is not None and res.program_exit == 0, proc.stderr[-2000:]
    return sorted((r.site.line, r.prior_site.line if r.prior_site else 0, r.kind, r.memory, r.kernel, r.access,
                   r.thread, r.block, r.prior_thread, r.prior_block, r.offset, r.count) for r in res.races)


@pytest.fixture(scope="module")
def with_memo(tmp_path_factory):
    return _races(tmp_path_factory.mktemp("memo"), [])


def test_every_race_of_the_repeats_is_found_with_the_memo(with_memo):
    lines = {r[0] for r in with_memo} | {r[1] for r in with_memo if r[1]}
    assert lines <= _expected(SOURCE)
    assert {r[4] for r in with_memo} == {"after_warp_sync", "own_change", "across_blocks"}
    assert set(sorted(_expected(SOURCE))[:2]) <= lines   # (after_warp_sync's: lane 31's read after the sync, lane 0's write)


def test_the_memo_changes_no_record(with_memo, tmp_path):
    assert _races(tmp_path, ["HIRACE_BENCH_NO_TURN_MEMO=1"]) == with_memo
