"""The state machine: generated header, oracle litmus traces, exhaustive agreement."""
import csv
import functools
import re
import shutil
import subprocess
import sys

import pytest

from hirace import fsm, genheader
from hirace.modelcheck import check
from hirace.oracle import BAR, SYNCWARP, Grid, first_race
from hirace.shadow_model import ShadowSim

G = Grid(2, 2, 2)
t = G.tid          # t(block, warp, lane)


class _HarnessBuilds:
    """`subprocess` as hirace.modelcheck sees it, each harness build made once: check_with_header
    compiles the harness for every grid it replays (_memory_replay: seven grids, seven compiles of one
    command: the grid is the program's argument, not a macro); a build is copied from the first of its
    command, which names the include directory (a test's edited copy is a command of its own)."""

    def __init__(self, folder):
        self.folder, self.built = folder, {}

    def run(self, cmd, *args, **kw):
        if cmd[0] != "g++" or "-o" not in cmd:
            return subprocess.run(cmd, *args, **kw)
        at = cmd.index("-o")
        key = (*cmd[:at], *cmd[at + 2:])
        if key not in self.built:
            exe = self.folder / f"harness{len(self.built)}"
            subprocess.run([*cmd[:at + 1], str(exe), *cmd[at + 2:]], *args, **kw)   # (check=True: raises as before)
            self.built[key] = exe
        shutil.copy2(self.built[key], cmd[at + 1])
        return subprocess.CompletedProcess(cmd, 0, "", "")


@pytest.fixture(scope="module", autouse=True)
def _harness_built_once(tmp_path_factory):
    """This module's header replays compile each harness once (_HarnessBuilds)."""
    from hirace import modelcheck
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(modelcheck, "subprocess", _HarnessBuilds(tmp_path_factory.mktemp("fsm-harness")))
        yield


def fsm_first_race(trace, grid=G):
    sim = ShadowSim(grid)
    for i, ev in enumerate(trace):
        if sim.event(ev):
            return i
    return None


LITMUS = {
    # the paper's three patterns
    "read-write, no sync": ([("R", t(0, 0, 0)), ("W", t(0, 0, 1))], 1),
    "race across blocks after __syncthreads": (
        [("W", t(0, 0, 0)), (BAR, t(0, 0, 0)), (BAR, t(1, 0, 0)), ("R", t(1, 0, 0))], 3),
    "two readers then the first writes": (
        [("R", t(0, 0, 0)), ("R", t(0, 0, 1)), ("W", t(0, 0, 0))], 2),
    "two readers in two warps then the first writes": (
        [("R", t(0, 0, 0)), ("R", t(0, 1, 0)), ("W", t(0, 0, 0))], 2),
    # race-free look-alikes
    "read, __syncthreads, block atomics (HiRace's false alarm)": (
        [("R", t(0, 0, 0)), (BAR, t(0, 0, 0)), ("BA", t(0, 0, 0)), ("BA", t(0, 0, 1))], None),
    "write, __syncwarp, read by another lane": (
        [("W", t(0, 0, 0)), (SYNCWARP, t(0, 0, 0)), ("R", t(0, 0, 1))], None),
    "write, __syncwarp, read by another warp": (
        [("W", t(0, 0, 0)), (SYNCWARP, t(0, 0, 0)), ("R", t(0, 1, 0))], 2),
    "device atomics from two blocks": ([("GA", t(0, 0, 0)), ("GA", t(1, 0, 0))], None),
    "block atomics from two blocks": ([("BA", t(0, 0, 0)), ("BA", t(1, 0, 0))], 1),
    "atomic then plain read in one warp": ([("GA", t(0, 0, 0)), ("R", t(0, 0, 1))], 1),
    "reads from every block": ([("R", t(0, 0, 0)), ("R", t(1, 1, 1)), ("R", t(0, 1, 0))], None),
    "one thread does everything": ([("W", t(0, 0, 0)), ("R", t(0, 0, 0)), ("GA", t(0, 0, 0)),
                                    ("BA", t(0, 0, 0))], None),
}


@pytest.mark.parametrize("name", LITMUS)
def test_litmus_traces_oracle_and_machine(name):
    trace, expected = LITMUS[name]
    assert first_race(trace, G) == expected
    assert fsm_first_race(trace) == expected


def test_generated_header_is_current():
    assert genheader.main(["--check"]) == 0, "run `python -m hirace.genheader`"


def test_state_count_fits_the_shadow_word():
    assert len(fsm.STATES) == 26
    assert len(fsm.STATES) <= 1 << fsm.STATE_BITS
    assert sum(bits for _, bits in fsm.SHADOW_FIELDS) == 64


def test_race_is_absorbing_and_untrusted_syncs_are_ignored():
    for s in fsm.STATES:
        for a in fsm.ACCESSES:
            assert fsm.step(fsm.RACE, a, "B", "W") == fsm.RACE
            # other block: no clock comparison is meaningful
            assert fsm.step(s, a, "U", "G") == fsm.step(s, a, "W", "G") == fsm.step(s, a, "B", "G")
            # another warp: warp clocks are not comparable
            assert fsm.step(s, a, "U", "B") == fsm.step(s, a, "W", "B")


@pytest.mark.parametrize("grid", [Grid(2, 2, 2), Grid(1, 2, 3), Grid(3, 1, 2)],
                         ids=lambda g: f"{g.blocks}x{g.warps}x{g.lanes}")
def test_exhaustive_agreement_small(grid):
    res = check(grid, 4)
    assert res.traces > 1000 and res.racy > 0
    assert not res.disagreements, res.examples
    assert res.header_traces == res.maximal and res.header_disagreements == 0


def test_syncs_of_part_of_a_warp_never_hide_a_race():
    """Tiles narrower than a warp, __syncwarp(mask) and coalesced groups (fsm.py, lane groups):
    on every trace of 5 events over two warps of 4 lanes, with each aligned tile's sync and a sync
    of two lanes that are no tile, the model and the header's routine report every race the oracle
    finds; where they report one the oracle does not, the trace holds a sync of part of a warp."""
    res = check(Grid(1, 2, 4), 5, masks=True)
    assert res.maximal > 100_000 and res.racy > 10_000
    assert res.disagreements["missed race"] == 0, res.examples
    assert res.header_traces == res.maximal and res.header_disagreements == 0, res.examples
    assert res.ok
    assert "__syncwarp(0x" in res.examples.get("false alarm", "__syncwarp(0x")
    # traces whose syncs all take the whole warp are exact on this grid too
    exact = check(Grid(1, 2, 4), 4)
    assert not exact.disagreements and exact.header_disagreements == 0


def test_without_the_rule_for_narrowed_groups_a_race_is_missed(monkeypatch):
    """The rule that makes X another warp's when its groups are finer than L's over a warp level
    of several lanes (shadow_model.inputs, update.h inputs) is what keeps lane groups sound."""
    from hirace import shadow_model
    monkeypatch.setattr(shadow_model, "_WARP_MULTI", 0)
    res = check(Grid(1, 1, 4), 5, with_header=False, masks=True)
    assert res.disagreements["missed race"] > 0
    assert "__syncwarp(0x9)" in res.examples["missed race"]


def test_lane_narrowing_is_the_specification_the_header_replays():
    assert fsm.lane_narrowing(0xffffffff, 7, 32) == 0
    assert fsm.lane_narrowing(0x0000ffff, 3, 32) == 1 and fsm.lane_narrowing(0xffff0000, 20, 32) == 1
    assert fsm.lane_narrowing(0x000000f0, 5, 32) == 3
    assert fsm.lane_narrowing(0x00000001, 0, 32) == 5
    assert fsm.lane_narrowing(0x0000ff00, 9, 32) == 2
    assert fsm.lane_narrowing(0x00000ff0, 5, 32) == 5      # eight lanes, not an aligned tile
    assert fsm.lane_narrowing(0x55555555, 2, 32) == 5      # every other lane


def test_checker_catches_a_broken_table():
    broken = fsm.table()
    # make "another lane writes after one lane read, no sync" forget the race
    s = fsm.STATE_INDEX[fsm.State("SW", "R", False, "R", "R")]
    idx = fsm.table_index(fsm.ACCESSES.index("W"), 0, 1, s)
    assert broken[idx] == fsm.STATE_INDEX[fsm.RACE]
    broken[idx] = s
    res = check(G, 3, with_header=False, table=broken)
    assert res.disagreements["missed race"] > 0
    assert "W by t(b0,w0,l1)" in res.examples["missed race"]


def test_lane_free_states_are_the_multi_lane_states_and_an_unsound_fast_path_is_caught(tmp_path):
    """The header skips rewriting a record for another lane of the recorded warp with its clocks in
    the states where lanes do not matter (computed from the table). The header replay checks that
    fast path: one taken in every state and whatever the clocks (a copy of the headers, edited)
    disagrees with the oracle."""
    from runtime import include_dir
    from hirace.genheader import lane_free_states
    from hirace.modelcheck import _Enumerator, check_with_header
    free = {s.name for s in fsm.STATES if lane_free_states() >> fsm.STATE_INDEX[s] & 1}
    assert {"SW_MR_R_R", "SW_MR_R_X", "SW_MR_X_X", "SW_MA_A_AB", "SW_MA_X_X"} <= free
    assert not free & {"INIT", "RACE", "SW_1R_R_R", "SW_1X_X_X", "SW_1A_A_AB"}
    inc = tmp_path / "include"
    shutil.copytree(include_dir(), inc)
    update, table = inc / "hirace" / "update.h", inc / "hirace" / "fsm_table.h"
    text = update.read_text()
    cond = " && rel <= fsm::kSameWarp && syn == fsm::kUnsynced &&"
    assert cond in text
    update.write_text(text.replace(cond, " && rel <= fsm::kSameWarp &&"))
    table.write_text(re.sub(r"kLaneFreeStates = 0x[0-9a-f]+u", "kLaneFreeStates = 0x7ffffeu", table.read_text()))
    en = _Enumerator(Grid(1, 2, 3), 5, keep_traces=True)
    res = en.run()
    check_with_header(res, en.maximal_traces, include=inc)
    assert res.header_disagreements > 0 and "header differs from the model" in res.examples


def test_verify_fsm_command_and_export(tmp_path):
    out = tmp_path / "fsm.csv"
    r = subprocess.run([sys.executable, "-m", "hirace.cli", "verify-fsm", "--events", "3",
                        "--export", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "false alarms:       0" in r.stdout and "missed races:       0" in r.stdout
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["access", "sync", "relation", "state", "new_state"]
    assert len(rows) - 1 == 4 * 3 * 4 * len(fsm.STATES)
    assert {r[0] for r in rows[1:]} == {"R", "W", "BA", "GA"}
    assert {r[3] for r in rows[1:]} >= {"INIT", "RACE"}
    assert ["R", "U", "S", "INIT", "SW_1R_R_R"] in rows


@pytest.mark.parametrize("memory_sync", [0, 1])
def test_header_compiles_with_nvcc(tmp_path, nvcc, memory_sync):
    """The update, and with HIRACE_MEMORY_SYNC=1 its memory-sync record and routines (memory_sync.h),
    compile for the device."""
    from runtime import include_dir
    src = tmp_path / "use.cu"
    src.write_text('#include "hirace/update.h"\n'
                   '#if HIRACE_MEMORY_SYNC\n'
                   'namespace ms = hirace::memsync;\n'
                   '__global__ void k(unsigned long long *s, ms::MemorySync m) {\n'
                   '  hirace::ThreadCtx c{threadIdx.x, blockIdx.x, 0, hirace::WarpWord::marked(0u), 32};\n'
                   '  ms::fence(m, hirace::memory_thread(c), c.wclk(), ms::kDevice);\n'
                   '  ms::barrier(m, hirace::memory_thread(c), 1);\n'
                   '  if (hirace::update(s, c, hirace::fsm::kDeviceAtomic, nullptr, &m, 0)) s[1] = 1;\n'
                   '  ms::strong(m, hirace::memory_thread(c), ms::kRmw, ms::kDevice, 0);\n'
                   '  ms::strong(m, hirace::memory_thread(c), ms::kLoad, ms::kBlock, 1);\n}\n'
                   '#else\n'
                   '__global__ void k(unsigned long long *s) {\n'
                   '  hirace::ThreadCtx c{threadIdx.x, blockIdx.x, 0, 0, 32};\n'
                   '  if (hirace::update(s, c, hirace::fsm::kWrite)) s[1] = 1;\n}\n'
                   '#endif\n')
    r = subprocess.run([str(nvcc), "-c", "-std=c++17", f"-DHIRACE_MEMORY_SYNC={memory_sync}", f"-I{include_dir()}",
                        str(src), "-o", str(tmp_path / "use.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_record_of_an_earlier_launch_reads_as_untouched(tmp_path):
    """Launch epochs: a record whose block lies below the launch's first block (an earlier launch's)
    is INIT to the update, so a launch boundary orders it without a reset; a record of this launch
    still counts."""
    import shutil
    from runtime import include_dir
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no host C++ compiler (g++) on this machine")
    src = tmp_path / "epoch.cpp"
    src.write_text(
        '#include <cstdio>\n#include "hirace/update.h"\nusing namespace hirace;\n'
        'int main() {\n'
        '  unsigned long long w = 0;\n'
        '  ThreadCtx writer{0, 5, 0, 0, 32, 0};            // launch 1: blocks 0..9, block 5 writes\n'
        '  if (update(&w, writer, fsm::kWrite)) return 10;\n'
        '  ThreadCtx other{3, 12, 0, 0, 32, 10};           // launch 2: blocks 10.., block 12 writes\n'
        '  ShadowWord prior;\n'
        '  bool race = update(&w, other, fsm::kWrite, &prior);\n'
        '  ThreadCtx third{4, 13, 0, 0, 32, 10};           // block 13 of launch 2 writes the same word\n'
        '  bool race2 = update(&w, third, fsm::kWrite);\n'
        '  std::printf("%d %u %d\\n", int(race), ShadowWord(w).state(), int(race2));\n'
        '  return 0;\n}\n')
    exe = tmp_path / "epoch"
    r = subprocess.run([cxx, "-std=c++17", f"-I{include_dir()}", str(src), "-o", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.returncode == 0
    race, state, race2 = out.stdout.split()
    assert race == "0" and race2 == "1" and int(state) == fsm.STATES.index(fsm.RACE)


# ---------------------------------------------------------------- synchronisation through memory
# (docs/memory-model.md): the oracle follows PTX's release/acquire patterns with scopes; the Python
# model (the runtime's design) must never miss a race against it, and reports none where it finds none.
from hirace.oracle import BLOCK, DEVICE, fence, flag_op  # noqa: E402

M = Grid(2, 1, 1)       # two blocks of one thread: t0 = block 0, t1 = block 1
MP = [("W", 0), (fence(DEVICE), 0), (flag_op("ST", DEVICE), 0), (flag_op("LD", DEVICE), 1), (fence(DEVICE), 1),
      ("R", 1)]

MEMORY_LITMUS = {
    "message passing, fenced on both sides": (MP, None),
    "message passing, no fence in the consumer": (MP[:4] + MP[5:], 4),
    "message passing, a fence of block scope in the producer": (MP[:1] + [(fence(BLOCK), 0)] + MP[2:], 5),
    "message passing, the flag read before it is set": ([MP[0], MP[1], MP[3], MP[2], MP[4], MP[5]], 5),
    "message passing, a __syncthreads completes the consumer's acquire": (MP[:4] + [(BAR, 1)] + MP[5:], None),
    "message passing, data written after the fence": ([MP[1], MP[0]] + MP[2:], 5),
    # threadFenceReduction's counter: every block fences and increments it; the last one resets it
    "a counter whose every increment is a release, reset by the last": (
        [(fence(DEVICE), 0), ("GA", 0), (fence(DEVICE), 1), ("GA", 1), (BAR, 1), ("W", 1)], None),
    "a counter one block increments without a fence": (
        [("GA", 0), (fence(DEVICE), 1), ("GA", 1), (BAR, 1), ("W", 1)], 4),
    "a counter whose unfenced increment a later release of its thread covers": (
        [("GA", 0), (fence(DEVICE), 0), ("GA", 0), (fence(DEVICE), 1), ("GA", 1), (fence(DEVICE), 1), ("R", 1)], None),
    "a counter reset before the last increment is read": ([(fence(DEVICE), 0), ("GA", 0), (BAR, 1), ("W", 1)], 3),
    # the last block's acquire of the counter is kept per flag: threadFenceReduction's last block reads
    # volatile shared words (another flag) and passes barriers between its ticket and the reset
    "a counter reset by the last after its block acquired another flag": (
        [(fence(DEVICE), 0), ("GA", 0), (fence(DEVICE), 1), ("GA", 1), (BAR, 1), (flag_op("LD", DEVICE), 1), (BAR, 1),
         ("W", 1)], None),
    "a counter reset by the last after its block released and acquired another flag": (
        [(fence(DEVICE), 0), ("GA", 0), (fence(DEVICE), 1), ("GA", 1), (BAR, 1), (flag_op("ST", DEVICE), 1),
         (flag_op("LD", DEVICE), 1), (BAR, 1), ("W", 1)], None),
    "a counter acquired, then released again by another block, then reset": (
        [(fence(DEVICE), 0), ("GA", 0), ("GA", 1), (BAR, 1), (fence(DEVICE), 0), ("GA", 0), ("W", 1)], 6),
}


def model_first_race(trace, grid=M):
    sim = ShadowSim(grid, mem=True)
    for i, ev in enumerate(trace):
        if sim.event(ev):
            return i
    return None


@pytest.mark.parametrize("name", sorted(MEMORY_LITMUS))
def test_memory_litmus_traces_oracle_and_model(name):
    trace, expected = MEMORY_LITMUS[name]
    assert first_race(trace, M) == expected
    assert model_first_race(trace) == expected


@pytest.mark.parametrize("grid", [Grid(2, 1, 1), Grid(1, 2, 1), Grid(1, 1, 2)])
def test_memory_model_agrees_with_the_oracle_on_every_small_trace(grid):
    res = check(grid, 4, with_header=False, memory=True)
    assert res.traces > 40_000
    assert not res.disagreements, res.examples


def test_a_fence_seen_by_other_lanes_as_a_warp_sync_is_caught(monkeypatch):
    """The fence's mark advances the thread's warp clock; other lanes must not read it as a sync
    of theirs (marks): without that, a race between two lanes after a fence is missed."""
    def marked_as_sync(self, t):
        self.wclk[t] += 1
    monkeypatch.setattr(ShadowSim, "_marker", marked_as_sync)
    res = check(Grid(1, 1, 2), 4, with_header=False, memory=True)
    assert res.disagreements["missed race"], "the checker did not catch a fence taken as a warp sync"


def test_an_acquire_of_a_changed_flag_is_caught(monkeypatch):
    """An acquire takes only the releases its read observed: a fence after the flag changed again
    must not acquire the newer ones (the version check); without it a race is missed."""
    from hirace import shadow_model
    real = shadow_model.ShadowSim._acquire

    def any_version(self, t, scope):
        p = self.mem.pending.get(t)
        if p is not None:
            self.mem.pending[t] = (p[0], self.mem.flags.get(p[0], (0, {}))[0], p[2])
        real(self, t, scope)
    trace, race_at = MEMORY_LITMUS["message passing, the flag read before it is set"]
    assert model_first_race(trace) == race_at
    monkeypatch.setattr(shadow_model.ShadowSim, "_acquire", any_version)
    assert model_first_race(trace) is None, "the broken acquire should miss this race"


# A reader between its read and its fence while another block's read-modify-write changes the flag (a
# look-back scan's predecessors, read by several successors at once on a GPU): PTX orders the reader
# after the release it read from whatever came after it in the flag's order.
M3 = Grid(3, 1, 1)
RMW_AFTER_READ = {
    "an acquire survives another block's fenced read-modify-write before its fence": (
        [("W", 0), (fence(DEVICE), 0), (flag_op("RMW", DEVICE), 0), (flag_op("RMW", DEVICE), 1), (fence(DEVICE), 2),
         (flag_op("RMW", DEVICE), 2), (fence(DEVICE), 1), ("R", 1)], None),
    "an acquire survives two read-modify-writes of another block before its fence": (
        [("W", 0), (fence(DEVICE), 0), (flag_op("RMW", DEVICE), 0), (flag_op("RMW", DEVICE), 1), (fence(DEVICE), 2),
         (flag_op("RMW", DEVICE), 2), (flag_op("RMW", DEVICE), 2), (fence(DEVICE), 1), ("R", 1)], None),
    "the writer's next release between the read and its fence": (
        [("W", 0), (fence(DEVICE), 0), (flag_op("RMW", DEVICE), 0), (flag_op("RMW", DEVICE), 1), (fence(DEVICE), 0),
         (flag_op("RMW", DEVICE), 0), (fence(DEVICE), 1), ("R", 1)], None),
    "the writer's next release, whose write the read did not see": (
        [(fence(DEVICE), 0), (flag_op("RMW", DEVICE), 0), (flag_op("RMW", DEVICE), 1), ("W", 0), (fence(DEVICE), 0),
         (flag_op("RMW", DEVICE), 0), (fence(DEVICE), 1), ("R", 1)], 7),
    "two releases of the writer after the read: neither acquired": (
        [(flag_op("RMW", DEVICE), 1), ("W", 0), (fence(DEVICE), 0), (flag_op("RMW", DEVICE), 0), (fence(DEVICE), 0),
         (flag_op("RMW", DEVICE), 0), (fence(DEVICE), 1), ("R", 1)], 7),
    "a release that came after the read is not acquired": (
        [(fence(DEVICE), 0), (flag_op("RMW", DEVICE), 0), (flag_op("RMW", DEVICE), 1), ("W", 2), (fence(DEVICE), 2),
         (flag_op("RMW", DEVICE), 2), (fence(DEVICE), 1), ("R", 1)], 7),
}


@pytest.mark.parametrize("name", sorted(RMW_AFTER_READ))
def test_read_modify_writes_between_a_read_and_its_fence(name):
    trace, expected = RMW_AFTER_READ[name]
    assert first_race(trace, M3) == expected
    assert model_first_race(trace, M3) == expected


# Several readers of one release (docs/memory-model.md): blocks that acquire the release another block
# acquired read what the writer published (a decoupled look-back scan whose successors read one
# predecessor's aggregate: ms_lookback_scan_ok). The first reader's read, ordered through memory, takes the
# record as the writer's own thread would; the record it replaced is kept beside it, so that a second reader
# ordered after the writer takes MB_RW (reads of several threads after the access the record keeps), where
# every later read is checked against that access and every later write races.
_LD, _ST, _RMW, _F = flag_op("LD", DEVICE), flag_op("ST", DEVICE), flag_op("RMW", DEVICE), fence(DEVICE)
_PRODUCE = [("W", 0), (_F, 0), (_ST, 0)]


def _acquire(t):
    return [(_LD, t), (_F, t)]


TWO_READERS = _PRODUCE + _acquire(1) + [("R", 1)] + _acquire(2) + [("R", 2)]
# a critical section that reads and writes the word, by each lock holder in turn (ms_lock_blocks_ok)
_LOCKED = [[(_RMW, b), (_F, b), ("R", b), ("W", b), (_F, b), (_ST, b)] for b in range(3)]
SEVERAL_READERS = {   # name: (trace, grid, the first race)
    "two readers of one release": (TWO_READERS, M3, None),
    "a second reader that did not acquire": (_PRODUCE + _acquire(1) + [("R", 1), ("R", 2)], M3, 6),
    "a third reader that did not acquire": (TWO_READERS + [("R", 3)], Grid(4, 1, 1), 9),
    "a third reader that acquired": (TWO_READERS + _acquire(3) + [("R", 3)], Grid(4, 1, 1), None),
    "the writer reads after the reader": (_PRODUCE + _acquire(1) + [("R", 1), ("R", 0)], M3, None),
    "a write after two readers, by the second": (TWO_READERS + [("W", 2)], M3, 9),
    "a write after two readers, by the writer": (TWO_READERS + [("W", 0)], M3, 9),
    "the first reader writes, then a second reads": (_PRODUCE + _acquire(1) + [("R", 1), ("W", 1)] + _acquire(2) +
                                                     [("R", 2)], M3, 9),
    "the first reader writes, syncs its warp and reads again, then a second reads": (
        _PRODUCE + _acquire(1) + [("R", 1), ("W", 1), (SYNCWARP, 1), ("R", 1)] + _acquire(2) + [("R", 2)], M3, 11),
    "the first reader reads again after a fence of its own, then a second reads": (
        _PRODUCE + _acquire(1) + [("R", 1), (fence(BLOCK), 1), ("R", 1)] + _acquire(2) + [("R", 2)], M3, None),
    "a lock whose holders read and write in turn": (_LOCKED[0] + _LOCKED[1] + _LOCKED[2][:4], M3, None),
    "a lock whose middle holder only reads": (_LOCKED[0] + _LOCKED[1][:3] + _LOCKED[1][4:] + _LOCKED[2][:4], M3, None),
    "a lock released without a fence": (_LOCKED[0][:4] + _LOCKED[0][5:] + _LOCKED[1][:4], M3, 7),
}


@pytest.mark.parametrize("name", sorted(SEVERAL_READERS))
def test_several_readers_of_one_release(name):
    trace, grid, expected = SEVERAL_READERS[name]
    assert first_race(trace, grid) == expected
    assert model_first_race(trace, grid) == expected


def test_two_readers_of_one_release():
    """The look-back scan's shape (the false alarm this rule removes): the record the first reader left is
    MB_RW after the second, naming the writer."""
    assert first_race(TWO_READERS, M3) is None
    sim = ShadowSim(M3, mem=True)
    assert not any(sim.event(ev) for ev in TWO_READERS)
    assert fsm.STATES[sim.state] == fsm.AFTER_WRITER and sim.last == 0


def test_a_race_in_mb_rw_is_described_against_what_it_clashed_with():
    """In MB_RW the record names the access the reads were ordered after: a read is described where that
    access was, anything else as clashing with the reads (hirace/results.py)."""
    from hirace.results import _clash_level
    assert _clash_level(fsm.AFTER_WRITER, False, False, read=True) == ("X", _clash_level(fsm.RACE, False, False)[1])
    assert _clash_level(fsm.AFTER_WRITER, True, False, read=True) == ("X", "same block, different warps, not ordered after it")
    assert _clash_level(fsm.AFTER_WRITER, True, True, read=True)[1] == "same warp, not ordered after it"
    cls, scope = _clash_level(fsm.AFTER_WRITER, True, True, read=False)
    assert cls == "R" and scope.startswith("reads of several threads")


# every trace of 9 events on three blocks of one thread that starts as a producer and a first reader (the
# events after it: a second reader's acquire and read at most)
READER = _PRODUCE + _acquire(1) + [("R", 1)]


def test_readers_after_a_first_reader_agree_with_the_oracle():
    """On every trace of 9 events that starts with a producer and a first reader, the model reports exactly
    the oracle's races (three blocks of one thread: the rule's shapes, with no warp or block to share), and
    on two blocks of two lanes and on one block of three lanes it misses none (its false alarms there are
    the documented ones: a write after reads of several threads, knowledge that a warp sync does not pass on,
    an acquire of a flag that changed since the read)."""
    res = check(M3, 9, with_header=False, memory=True, prefix=READER)
    assert res.maximal > 20_000 and res.racy > 5_000
    assert not res.disagreements, res.examples
    for grid, first in ((Grid(2, 1, 2), 2), (Grid(1, 1, 3), 1)):
        reader = _PRODUCE + _acquire(first) + [("R", first)]
        res = check(grid, 9, with_header=False, memory=True, prefix=reader)
        assert res.maximal > 20_000 and res.disagreements["missed race"] == 0, res.examples


def test_a_second_reader_taken_as_after_the_writer_is_caught(monkeypatch):
    """A read of several readers must be ordered after the access the record keeps (after_access): without
    that question, the checker finds missed races."""
    monkeypatch.setattr(ShadowSim, "after_access", lambda self, t, record: True)
    res = check(M3, 8, with_header=False, memory=True, prefix=READER)
    assert res.disagreements["missed race"] > 0
    assert res.examples["missed race"].endswith("R by t(b2,w0,l0)")


# An acquire of block scope (a fence of block scope after the read) synchronises with the release whose value
# it read only where that release is of its own block: an entry of its own block that another block's release
# put into the flag (what that block's thread knew) is not acquired (Entry.via); one the flag's release
# sequence still holds (a read-modify-write since) is. Two lanes in block 0: the writer and the reader.
M22 = Grid(2, 1, 2)
BLOCK_SCOPE_ACQUIRE = {
    "a block-scope acquire of another block's store that carries its own block's release": (
        _PRODUCE + _acquire(2) + [(_ST, 2), (_LD, 1), (fence(BLOCK), 1), ("R", 1)], 8),
    "a device-scope acquire of the same": (_PRODUCE + _acquire(2) + [(_ST, 2), (_LD, 1), (_F, 1), ("R", 1)], None),
    "a block-scope acquire of another block's read-modify-write in its own block's release sequence": (
        _PRODUCE + _acquire(2) + [(_RMW, 2), (_LD, 1), (fence(BLOCK), 1), ("R", 1)], None),
    "a second reader that took its own block's release from another block's store at block scope": (
        _PRODUCE + _acquire(2) + [("R", 2), (_ST, 2), (_LD, 1), (fence(BLOCK), 1), ("R", 1)], 9),
}


@pytest.mark.parametrize("name", sorted(BLOCK_SCOPE_ACQUIRE))
def test_a_block_scope_acquire_synchronises_with_its_own_blocks_release(name):
    trace, expected = BLOCK_SCOPE_ACQUIRE[name]
    assert first_race(trace, M22) == expected
    assert model_first_race(trace, M22) == expected


def test_an_acquire_of_entries_that_joined_after_the_read_is_caught(monkeypatch):
    """Of a flag changed by read-modify-writes since the read, only the entries that joined it by the
    read's version are acquired (MemorySync.since): taking the others misses a race."""
    from hirace import shadow_model
    real = shadow_model.ShadowSim._flag

    def joined_at_once(self, t, op, scope, flag):
        real(self, t, op, scope, flag)
        self.mem.since[flag] = dict.fromkeys(self.mem.since.get(flag, {}), 0)
    trace, race_at = RMW_AFTER_READ["a release that came after the read is not acquired"]
    monkeypatch.setattr(shadow_model.ShadowSim, "_flag", joined_at_once)
    assert model_first_race(trace, M3) is None, "the broken record should miss this race"


# ---------------------------------------------------------------- the header's own memory sync
# (runtime/include/hirace/memory_sync.h, update.h under HIRACE_MEMORY_SYNC): replayed over the same traces
# through the harness built with the macro at 1, it must report each first race where the model does.
# Exhaustive traces of 4 events hold no message passing (6 events: write, fence, store; load, fence,
# read), so the replay also takes every trace of 6 events that starts as a producer (`prefix`).
PRODUCER = MP[:3]
COUNTER = [(fence(DEVICE), 0), ("GA", 0)]
# the record the fast paths would leave stale (update.h: with memory followed, none in atomic states):
# t0's third atomic keeps MW_A_AG, a skipped rewrite would keep t2 as L, and t0's read after its acquire
# and a warp sync would then not count the sync: t1's read would be a false alarm
STALE = (Grid(1, 2, 2), [(fence(DEVICE), 0), ("GA", 0), (fence(DEVICE), 2), ("GA", 2), ("GA", 0), (fence(DEVICE), 0),
                         (SYNCWARP, 0), ("R", 0), ("R", 1)])


@functools.cache
def _memory_traces():
    """grid -> [(trace, the model's first race or -1)]: every trace of 4 events (three grids), every
    trace of 6 that starts as a producer, of 5 that starts as a counter's release, of 9 that starts as a
    producer and a first reader (READER), the litmus traces STALE, the read-modify-writes between a read
    and its fence, several readers of one release and acquires of block scope."""
    from hirace.modelcheck import _Enumerator
    by_grid = {}
    for grid, k, prefix in ((Grid(2, 1, 1), 4, ()), (Grid(1, 2, 1), 4, ()), (Grid(1, 1, 2), 4, ()),
                            (Grid(2, 1, 1), 6, PRODUCER), (Grid(1, 1, 2), 6, PRODUCER), (Grid(2, 1, 1), 5, COUNTER)):
        en = _Enumerator(grid, k, keep_traces=True, memory=True)
        en.run(prefix)
        by_grid.setdefault(grid, []).extend(en.maximal_traces)
    en = _Enumerator(M3, 9, keep_traces=True, memory=True)   # a second reader after a first (READER)
    en.run(READER)
    by_grid.setdefault(M3, []).extend(en.maximal_traces)
    by_grid.setdefault(M22, []).extend((trace, -1 if (at := model_first_race(trace, M22)) is None else at)
                                       for trace, _ in BLOCK_SCOPE_ACQUIRE.values())
    for trace, grid, _ in SEVERAL_READERS.values():
        by_grid.setdefault(grid, []).append((trace, -1 if (at := model_first_race(trace, grid)) is None else at))
    for grid, traces in ((M, [trace for trace, _ in MEMORY_LITMUS.values()]), (STALE[0], [STALE[1]]),
                         (M3, [trace for trace, _ in RMW_AFTER_READ.values()])):
        by_grid.setdefault(grid, []).extend((t, -1 if (at := model_first_race(t, grid)) is None else at)
                                            for t in traces)
    return by_grid


def _memory_replay(include=None):
    """The header replay (built with HIRACE_MEMORY_SYNC=1) of _memory_traces: the Results, per grid."""
    from hirace.modelcheck import Result, check_with_header
    out = []
    for grid, traces in _memory_traces().items():
        res = Result(grid, max(len(t) for t, _ in traces), memory=True)
        check_with_header(res, traces, include=include)
        assert res.header_traces == len(traces)
        out.append(res)
    return out


def test_the_header_follows_memory_as_the_model_does():
    """memory_sync.h and update.h's rules (HIRACE_MEMORY_SYNC=1) agree with the model on every trace."""
    assert model_first_race(MP) is None and model_first_race(STALE[1], STALE[0]) is None
    assert first_race(STALE[1], STALE[0]) is None
    runs = _memory_replay()
    assert sum(r.header_traces for r in runs) > 150_000
    assert [r.examples for r in runs if r.header_disagreements] == []


_UNMARKED = fsm.STATE_INDEX[fsm.State("SW", "X", False, "X", "X")]   # (SW_1X_X_X)
_BROKEN = {   # a rule of the header's, broken in a copy: (file, text, replacement)
    "ordered through memory, not asked": (
        "update.h", "memsync::ordered_through_memory(*mem, s, s.bid() - c.base, memory_thread(c)))", "false)"),
    "a release from any fence of L's thread": (
        "memory_sync.h", "(l_tid == Point::tid(k.at) && wclk_ahead(Point::wclk(k.at), l_wclk))",
        "l_tid == Point::tid(k.at)"),
    "every access a release, not asked": (
        "memory_sync.h", "    if (!mine && !before_barrier && !before_release) return false;",
        "    (void)mine, (void)before_barrier, (void)before_release;"),
    "an unfenced access a later release covers, not asked": (
        "memory_sync.h", "    const bool before_release = f.unreleased != FlagSync::kSeveral &&",
        "    const bool before_release = false && f.unreleased != FlagSync::kSeveral &&"),
    "the fence's mark taken for a warp sync": (
        "update.h", "    return WarpWord::count(warp) - WarpWord::marks(warp);", "    return WarpWord::count(warp);"),
    "the fast paths in atomic states": ("update.h", "if (!mem || !((fsm::kAtomicStates >> st) & 1u)) {", "if (true) {"),
    "entries that joined the flag after the read acquired": (
        "memory_sync.h", "!changed || !newer(m.since[1ull * slot * m.blocks + of], me.version)", "true"),
    "the entry a newer release replaced not kept": (
        "memory_sync.h", "      if (kept) previous[of] = Entry{was.stamp, was.only, was.at, since[of]};", ""),
    "the entry a newer release replaced taken whenever it joined": (
        "memory_sync.h", "  return p.stamp && !newer(p.learnt, version) ? p : Entry{};", "  return p;"),
    "a read's entries taken as replaced by a read-modify-write": (
        "memory_sync.h", "    } else if (e.stamp != kept) {   // (joined the value now; the entry it replaced kept one deep)",
        "    } else {"),
    "a block's acquire kept past the flag's next release": (
        "memory_sync.h", "    e.learnt = 0;   // (a new version: no block acquired it yet)", ""),
    "a block-scope acquire taking its own block's entry another block's release put in": (
        "memory_sync.h", "if (none || (s == kBlock && via != t.block)) {", "if (none || (s == kBlock && of != t.block)) {"),
    # several readers of one release
    "a second reader not asked whether it is after the kept access": (
        "update.h", "p->reader == old && after_access(ShadowWord(p->writer), ShadowWord(p->writer).state(), c, *mem, hold)",
        "p->reader == old"),
    "MB_RW's reads not asked whether they are after the access it keeps": (
        "update.h", "        if (after_access(s, st, c, *mem, hold)) next = st;", "        next = st;"),
    "the kept record not compared with the record": (
        "update.h", "if (p && p->reader == old && after_access(", "if (p && after_access("),
    "the kept records taken afresh where they carry on": (
        "update.h", "writer = pair->reader == old ? pair->writer : install ? old : 0;", "writer = install ? old : 0;"),
    # (two edits: a read through memory left unmarked, its state SW_1X_X_X taken for a reader's, in which the
    # first reader's write leaves the record as it was)
    "a read through memory left unmarked": (
        ("fsm_table.h", "CCTK_HD constexpr unsigned read_through_memory(unsigned state) {\n  return ",
         "CCTK_HD constexpr unsigned read_through_memory(unsigned state) {\n  return (0x%xu >> state & 1u) ? %du : "
         % (fsm.read_through_states() & ~fsm.reader_states(), _UNMARKED)),
        ("fsm_table.h", f"kReaderStates = 0x{fsm.reader_states():x}u;",
         f"kReaderStates = 0x{fsm.reader_states() | 1 << _UNMARKED:x}u;")),
}


@pytest.mark.parametrize("rule", sorted(_BROKEN))
def test_a_broken_memory_rule_in_the_header_is_caught(tmp_path, rule):
    """Each rule of the header's memory sync matters: broken in a copy of the headers, the replay
    over the same traces finds the header differing from the model."""
    from runtime import include_dir
    inc = tmp_path / "include"
    shutil.copytree(include_dir(), inc)
    edits = _BROKEN[rule]
    for name, old, new in edits if isinstance(edits[0], tuple) else (edits,):
        path = inc / "hirace" / name
        text = path.read_text()
        assert text.count(old) == 1, rule
        path.write_text(text.replace(old, new))
    runs = _memory_replay(inc)
    assert any(r.header_disagreements for r in runs), f"the replay did not catch: {rule}"
    assert all("header differs from the model" in r.examples for r in runs if r.header_disagreements)
