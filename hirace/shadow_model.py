"""Algorithm 1 in Python: one shadow record per word, the generated table, and the
same input computation as the CUDA header (runtime/include/hirace/update.h).

Used by the model checker for speed; the checker also drives the header's own
routine, compiled for the host, over the same traces (hirace.modelcheck)."""
from __future__ import annotations

from dataclasses import dataclass

from . import fsm
from .oracle import BAR, SYNCWARP, Grid

_TABLE = fsm.table()
_RACE = fsm.STATE_INDEX[fsm.RACE]
_A = {k: i for i, k in enumerate(fsm.ACCESSES)}


@dataclass
class ShadowSim:
    grid: Grid
    state: int = 0
    last: int = -1
    last_bclk: int = 0
    last_wclk: int = 0
    bclk: list[int] | None = None
    wclk: list[int] | None = None
    table: list[int] | None = None   # default: the generated table

    def __post_init__(self) -> None:
        if self.table is None:
            self.table = _TABLE
        if self.bclk is None:
            self.bclk = [0] * self.grid.threads
            self.wclk = [0] * self.grid.threads

    def copy(self) -> "ShadowSim":
        return ShadowSim(self.grid, self.state, self.last, self.last_bclk, self.last_wclk,
                         self.bclk[:], self.wclk[:], self.table)

    def relation(self, t: int) -> int:
        g = self.grid
        if t == self.last:
            return 0
        if g.warp_of(t) == g.warp_of(self.last):
            return 1
        if g.block_of(t) == g.block_of(self.last):
            return 2
        return 3

    def event(self, ev) -> bool:
        kind, t = ev
        g = self.grid
        if kind == BAR:
            for u in g.block_threads(g.block_of(t)):
                self.bclk[u] += 1
            return False
        if kind == SYNCWARP:
            for u in g.warp_threads(g.warp_of(t)):
                self.wclk[u] += 1
            return False
        if self.state == 0:
            rel, sync = 0, 0
        else:
            rel = self.relation(t)
            sync = 2 if self.bclk[t] > self.last_bclk else (1 if self.wclk[t] > self.last_wclk else 0)
        new = self.table[fsm.table_index(_A[kind], sync, rel, self.state)]
        self.state, self.last, self.last_bclk, self.last_wclk = new, t, self.bclk[t], self.wclk[t]
        return new == _RACE
