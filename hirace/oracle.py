"""The reference: a happens-before race detector with full vector clocks.

The CUDA model it checks, for one launch:
- program order orders each thread's events;
- `__syncthreads` (BAR) orders all threads of one block; `__syncwarp` (SYNCWARP)
  orders the lanes of one warp, a sync of some of its lanes (`lanes_sync(mask)`: a tile,
  `__syncwarp(mask)`, a coalesced group) orders those lanes; nothing orders different blocks;
- two accesses race when they are unordered and conflict: not both reads, and
  not two atomics whose scopes each cover the other thread (a block-scope atomic
  covers its own block only, a device-scope atomic covers the grid).
A trace is a list of events; `first_race(trace)` is the index of the first
event that completes a race with an earlier one, or None.
"""
from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("R", "W", "BA", "GA")
BAR, SYNCWARP = "BAR", "SYNCWARP"
_LANES = "SYNC:"


def lanes_sync(mask: int) -> str:
    """The event kind of a sync of the lanes in `mask` of a warp (its thread: one of them)."""
    return f"{_LANES}{mask:x}"


def lanes_of(kind: str) -> int | None:
    """The lane mask of a lanes_sync kind; None for any other event."""
    return int(kind[len(_LANES):], 16) if kind.startswith(_LANES) else None


@dataclass(frozen=True)
class Grid:
    blocks: int
    warps: int        # warps per block
    lanes: int        # threads per warp

    @property
    def threads(self) -> int:
        return self.blocks * self.warps * self.lanes

    def tid(self, b: int, w: int, l: int) -> int:
        return (b * self.warps + w) * self.lanes + l

    def block_of(self, t: int) -> int:
        return t // (self.warps * self.lanes)

    def warp_of(self, t: int) -> int:
        return t // self.lanes          # global warp index

    def block_threads(self, b: int) -> range:
        n = self.warps * self.lanes
        return range(b * n, (b + 1) * n)

    def warp_threads(self, gw: int) -> range:
        return range(gw * self.lanes, (gw + 1) * self.lanes)


def conflict(k1: str, t1: int, k2: str, t2: int, grid: Grid) -> bool:
    if k1 == "R" and k2 == "R":
        return False
    if k1 in ("BA", "GA") and k2 in ("BA", "GA"):
        same_block = grid.block_of(t1) == grid.block_of(t2)
        covered = (k1 == "GA" or same_block) and (k2 == "GA" or same_block)
        return not covered
    return True


@dataclass
class Oracle:
    """Incremental: feed events one at a time; copy() for depth-first search."""

    grid: Grid
    vc: list[list[int]] = field(default_factory=list)
    accesses: list[tuple[int, str, int]] = field(default_factory=list)  # (thread, kind, ts)

    def __post_init__(self) -> None:
        if not self.vc:
            n = self.grid.threads
            self.vc = [[1 if i == t else 0 for i in range(n)] for t in range(n)]

    def copy(self) -> "Oracle":
        return Oracle(self.grid, [row[:] for row in self.vc], self.accesses[:])

    def _sync(self, threads) -> None:
        threads = list(threads)
        joined = [max(self.vc[t][i] for t in threads) for i in range(self.grid.threads)]
        for t in threads:
            self.vc[t] = joined[:]
            self.vc[t][t] += 1

    def event(self, ev) -> bool:
        """Apply one event; True when it completes a race."""
        kind, t = ev
        if kind == BAR:
            self._sync(self.grid.block_threads(self.grid.block_of(t)))
            return False
        if kind == SYNCWARP:
            self._sync(self.grid.warp_threads(self.grid.warp_of(t)))
            return False
        mask = lanes_of(kind)
        if mask is not None:
            self._sync(u for u in self.grid.warp_threads(self.grid.warp_of(t)) if mask >> (u % self.grid.lanes) & 1)
            return False
        mine = self.vc[t]
        race = any(p != t and mine[p] < ts and conflict(k, p, kind, t, self.grid)
                   for p, k, ts in self.accesses)
        self.accesses.append((t, kind, mine[t]))
        return race


def first_race(trace, grid: Grid) -> int | None:
    o = Oracle(grid)
    for i, ev in enumerate(trace):
        if o.event(ev):
            return i
    return None
