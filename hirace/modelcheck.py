"""Exhaustive bounded model check of the state machine against the oracle.

Every trace of up to K events over a grid of B blocks x W warps x T lanes is
enumerated depth first: an event is an access (R, W, BA, GA) by one thread, a
`__syncthreads` of a block, or a `__syncwarp` of a warp; with `masks`, also a sync
of part of a warp (`lane_masks`: each aligned tile narrower than the warp, and one
set of lanes that is no tile), as tiles, `__syncwarp(mask)` and coalesced groups make. Threads, warps and
blocks are interchangeable, so a trace uses them in order of first appearance
(the next new lane of a warp, the next new warp of a block, the next new block),
and barriers are only taken by blocks/warps that have accessed the word; every
other trace is one of these up to renaming or a no-op barrier.

For each trace the Python model of Algorithm 1 (hirace.shadow_model, the same
table) and the oracle (hirace.oracle) must report their first race at the same
event. A trace ends at its first race (its extensions report the same event).
`check_with_header` replays the maximal traces through the CUDA header's own
update routine compiled for the host.
"""
from __future__ import annotations

import array
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from runtime import include_dir

from .oracle import (BAR, BLOCK, DEVICE, FLAG_OPS, KINDS, SYNCWARP, Grid, Oracle, fence, fence_scope, flag_of, flag_op,
                     lanes_of, lanes_sync)
from .shadow_model import ShadowSim
from instrument import reaper
from instrument.protocol import Macro, define
from instrument.reaper import temp_dir

HARNESS = Path(__file__).resolve().parent / "harness" / "fsm_harness.cpp"


@dataclass
class Result:
    grid: Grid
    events: int
    traces: int = 0             # prefix-closed: every explored sequence of 1..K events
    maximal: int = 0            # traces of length K, or ending at their first race
    racy: int = 0               # maximal traces with a race
    disagreements: Counter = field(default_factory=Counter)
    examples: dict = field(default_factory=dict)
    header_traces: int = 0
    header_disagreements: int = 0

    masks: bool = False         # traces with syncs of part of a warp: false alarms allowed (fsm.py)
    memory: bool = False        # traces with fences and flags (docs/memory-model.md)

    @property
    def ok(self) -> bool:
        wrong = self.disagreements["missed race"] + (0 if self.masks else self.disagreements["false alarm"])
        return not wrong and not self.header_disagreements


def describe(trace, grid: Grid) -> str:
    out = []
    for kind, t in trace:
        b, w, l = grid.block_of(t), (t // grid.lanes) % grid.warps, t % grid.lanes
        if kind == BAR:
            out.append(f"__syncthreads(block {b})")
        elif kind == SYNCWARP:
            out.append(f"__syncwarp(block {b} warp {w})")
        elif lanes_of(kind) is not None:
            out.append(f"__syncwarp(0x{lanes_of(kind):x}) (block {b} warp {w})")
        elif kind.startswith("F."):
            out.append(f"fence.{'cta' if kind.endswith(BLOCK) else 'gpu'} by t(b{b},w{w},l{l})")
        else:
            out.append(f"{kind} by t(b{b},w{w},l{l})")
    return "; ".join(out)


def lane_masks(lanes: int) -> list[int]:
    """The partial warp syncs the model check takes: every aligned tile narrower than the warp
    (of 2 lanes or more), and the first and last lane (no tile); warps of a power of two lanes."""
    if lanes < 2 or lanes & (lanes - 1):
        raise ValueError(f"lane-group syncs need warps of a power of two lanes, not {lanes}")
    tiles = [((1 << p) - 1) << at for p in (2 ** i for i in range(1, lanes.bit_length() - 1))
             for at in range(0, lanes, p)]
    return tiles + [1 | 1 << (lanes - 1)]


# the events of threads that synchronise through memory: fences of both scopes, strong reads,
# writes and read-modify-writes of one flag (device scope; block scope for the write)
MEMORY_EVENTS = (fence(BLOCK), fence(DEVICE), flag_op("LD", DEVICE), flag_op("ST", DEVICE),
                 flag_op("RMW", DEVICE), flag_op("ST", BLOCK))


class _Enumerator:
    def __init__(self, grid: Grid, k: int, keep_traces: bool, table=None, masks: bool = False,
                 memory: bool = False):
        self.g, self.k, self.table = grid, k, table
        self.masks = lane_masks(grid.lanes) if masks else []
        self.kinds = KINDS + (MEMORY_EVENTS if memory else ())
        self.memory = memory
        self.res = Result(grid, k, masks=masks, memory=memory)
        self.keep = keep_traces
        self.maximal_traces: list[tuple[list, int]] = []

    def choices(self, used: dict):
        """Events allowed next; `used` maps block -> {warp -> lanes used}."""
        g = self.g
        threads = []
        for b, warps in used.items():
            for w, lanes in warps.items():
                threads += [g.tid(b, w, l) for l in range(lanes)]
                if lanes < g.lanes:
                    threads.append(g.tid(b, w, lanes))
            if len(warps) < g.warps:
                threads.append(g.tid(b, len(warps), 0))
        if len(used) < g.blocks:
            threads.append(g.tid(len(used), 0, 0))
        for t in threads:
            for kind in self.kinds:
                yield (kind, t)
        for b, warps in used.items():
            yield (BAR, g.tid(b, 0, 0))
            for w in warps:
                yield (SYNCWARP, g.tid(b, w, 0))
                for m in self.masks:
                    yield (lanes_sync(m), g.tid(b, w, (m & -m).bit_length() - 1))

    def use(self, used: dict, t: int) -> dict:
        g = self.g
        b, w, l = g.block_of(t), (t // g.lanes) % g.warps, t % g.lanes
        new = {bb: dict(ws) for bb, ws in used.items()}
        warps = new.setdefault(b, {})
        warps[w] = max(warps.get(w, 0), l + 1)
        return new

    def run(self, prefix=()) -> Result:
        """prefix: explore only the traces that start with these events (race-free; their threads
        are taken as used)."""
        oracle, sim, used = Oracle(self.g), ShadowSim(self.g, table=self.table, mem=self.memory or None), {}
        for ev in prefix:
            if oracle.event(ev) | sim.event(ev):
                raise ValueError(f"the prefix races: {describe(prefix, self.g)}")
            if ev[0] != BAR and ev[0] != SYNCWARP and lanes_of(ev[0]) is None:
                used = self.use(used, ev[1])
        self._dfs(list(prefix), used, oracle, sim)
        return self.res

    def _dfs(self, trace, used, oracle, sim) -> None:
        if len(trace) == self.k:
            self._leaf(trace, None, None)
            return
        for ev in self.choices(used):
            o2, s2 = oracle.copy(), sim.copy()
            o_race, s_race = o2.event(ev), s2.event(ev)
            t2 = trace + [ev]
            self.res.traces += 1
            if o_race or s_race:
                if o_race != s_race:
                    cls = "false alarm" if s_race else "missed race"
                    self.res.disagreements[cls] += 1
                    self.res.examples.setdefault(cls, describe(t2, self.g))
                self._leaf(t2, len(t2) - 1 if o_race else None, len(t2) - 1 if s_race else None)
                continue
            nu = self.use(used, ev[1]) if ev[0] in KINDS else used
            self._dfs(t2, nu, o2, s2)

    def _leaf(self, trace, race_at, model_at) -> None:
        """race_at: the oracle's first race; model_at: the Python model's (the header must agree)."""
        self.res.maximal += 1
        self.res.racy += race_at is not None
        if self.keep:
            self.maximal_traces.append((trace, -1 if model_at is None else model_at))


def check(grid: Grid, k: int, with_header: bool = True, table=None, masks: bool = False,
          memory: bool = False, prefix=()) -> Result:
    """table: a replacement lookup table (for testing the checker itself); masks: traces with
    syncs of part of a warp too (lane_masks); memory: with fences and a flag (MEMORY_EVENTS);
    prefix: only the traces of up to k events that start with these (longer traces where they
    matter, such as message passing's six events)."""
    en = _Enumerator(grid, k, keep_traces=with_header, table=table, masks=masks, memory=memory)
    res = en.run(prefix)
    if with_header:
        check_with_header(res, en.maximal_traces)
    return res


def _encode(ev) -> int:
    """An event as the harness reads it (hirace/harness/fsm_harness.cpp): kind << 16 | thread."""
    kind, t = ev
    mask, scope, flag = lanes_of(kind), fence_scope(kind), flag_of(kind)
    if mask is not None:
        code = 6 | mask << 4
    elif scope is not None:
        code = 7 | (scope == DEVICE) << 4
    elif flag is not None and flag[2] != 0:
        op, fscope, n = flag
        code = 8 | FLAG_OPS.index(op) << 4 | (fscope == DEVICE) << 6 | n << 7
    else:
        code = {"R": 0, "W": 1, "BA": 2, "GA": 3, BAR: 4, SYNCWARP: 5}[kind]
    return code << 16 | t


def check_with_header(res: Result, traces, include: Path | None = None) -> None:
    """Replay every maximal trace through the header's update routine (host build), which must
    report the first race where the Python model does (the model is checked against the oracle);
    include: another runtime include directory (for testing the checker itself). Traces with
    fences and flags (res.memory) replay through the header built with HIRACE_MEMORY_SYNC=1."""
    g = res.grid
    macros = [f"-D{define(Macro.HIRACE_MEMORY_SYNC, 1)}"] if res.memory else []
    with temp_dir(prefix="hirace-fsm-") as tmp:
        exe = Path(tmp) / "harness"
        subprocess.run(["g++", "-O2", "-std=c++17", *macros, f"-I{include or include_dir()}", str(HARNESS), "-o",
                        str(exe)], check=True, capture_output=True, text=True, env=reaper.scratch_env())
        data = array.array("i")
        expect = []
        for trace, race_at in traces:
            data.append(len(trace))
            data.extend(_encode(ev) for ev in trace)
            expect.append(race_at)
        inp = Path(tmp) / "traces.bin"
        inp.write_bytes(data.tobytes())
        out = subprocess.run([str(exe), str(g.blocks), str(g.warps), str(g.lanes), str(inp)],
                             check=True, capture_output=True)
        got = array.array("i")
        got.frombytes(out.stdout)
    res.header_traces = len(expect)
    bad = [i for i, (a, b) in enumerate(zip(expect, got)) if a != b]
    res.header_disagreements = len(bad) + abs(len(expect) - len(got))
    if bad:
        res.examples.setdefault("header differs from the model",
                                describe(traces[bad[0]][0], g) + f" (model {expect[bad[0]]}, "
                                f"header {got[bad[0]]})")
