"""Algorithm 1 in Python: one shadow record per word, the generated table, and the
same input computation as the CUDA header (runtime/include/hirace/update.h).

Used by the model checker for speed; the checker also drives the header's own
routine, compiled for the host, over the same traces (hirace.modelcheck)."""
from __future__ import annotations

from dataclasses import dataclass

from . import fsm
from .oracle import BAR, SYNCWARP, Grid, lanes_of

_TABLE = fsm.table()
_RACE = fsm.STATE_INDEX[fsm.RACE]
_A = {k: i for i, k in enumerate(fsm.ACCESSES)}
_WARP_MULTI = fsm.warp_multi_states()


@dataclass
class ShadowSim:
    grid: Grid
    state: int = 0
    last: int = -1
    last_bclk: int = 0
    last_wclk: int = 0
    last_narrow: int = 0             # L's lane-group narrowing (fsm.lane_narrowing)
    bclk: list[int] | None = None
    wclk: list[int] | None = None
    narrow: list[int] | None = None
    full: list[int] | None = None    # each thread's warp clock at its last sync of the whole warp
    table: list[int] | None = None   # default: the generated table

    def __post_init__(self) -> None:
        if self.table is None:
            self.table = _TABLE
        if self.bclk is None:
            self.bclk = [0] * self.grid.threads
            self.wclk = [0] * self.grid.threads
            self.narrow = [0] * self.grid.threads
            self.full = [0] * self.grid.threads

    def copy(self) -> "ShadowSim":
        return ShadowSim(self.grid, self.state, self.last, self.last_bclk, self.last_wclk, self.last_narrow,
                         self.bclk[:], self.wclk[:], self.narrow[:], self.full[:], self.table)

    def inputs(self, t: int) -> tuple[int, int]:
        """(relation, sync) of an access by t against the record (update.h inputs)."""
        g = self.grid
        if g.block_of(t) != g.block_of(self.last):
            return 3, 0
        block = self.bclk[t] > self.last_bclk
        b, w = (2, 2) if block else (0, 1)
        after_full = self.last_wclk < self.full[t]   # a sync of the whole warp since L's access
        # X's group finer than L's, and L's warp level holds several lanes (some maybe outside X's)
        if self.narrow[t] > self.last_narrow and _WARP_MULTI >> self.state & 1:
            return (1, w) if after_full else (2, b)
        if t == self.last:
            return 0, w if self.wclk[t] > self.last_wclk else b
        if g.warp_of(t) == g.warp_of(self.last):
            synced = self.last_wclk < self.wclk[t]   # (of L's group: a sync of both since L's access)
            if self._one_group(t, max(self.narrow[t], self.last_narrow)):   # one group of the finer
                return 1, w if synced else b
            if (synced and self._one_group(t, self.narrow[t])) or after_full:   # X's last sync took L
                return 1, w
        return 2, b

    def _one_group(self, t: int, n: int) -> bool:
        width = max(1, self.grid.lanes >> n)
        return t % self.grid.lanes // width == self.last % self.grid.lanes // width

    def event(self, ev) -> bool:
        kind, t = ev
        g = self.grid
        if kind == BAR:
            for u in g.block_threads(g.block_of(t)):
                self.bclk[u] += 1
            return False
        mask = (1 << g.lanes) - 1 if kind == SYNCWARP else lanes_of(kind)
        if mask is not None:
            # the lanes' warp clocks join their latest, one past it; a group that is no tile is
            # lanes apart (groups of one lane: nothing to join)
            lanes = [u for u in g.warp_threads(g.warp_of(t)) if mask >> (u % g.lanes) & 1]
            n = fsm.lane_narrowing(mask, t % g.lanes, g.lanes)
            tile = n < g.lanes.bit_length() - 1 or len(lanes) == 1
            joined = max(self.wclk[u] for u in lanes) + 1
            for u in lanes:
                self.wclk[u] = joined if tile else self.wclk[u] + 1
                self.narrow[u] = n
                if n == 0:
                    self.full[u] = joined
            return False
        rel, sync = (0, 0) if self.state == 0 else self.inputs(t)
        new = self.table[fsm.table_index(_A[kind], sync, rel, self.state)]
        self.state, self.last, self.last_bclk, self.last_wclk = new, t, self.bclk[t], self.wclk[t]
        self.last_narrow = self.narrow[t]
        return new == _RACE
