"""The reference: a happens-before race detector with full vector clocks.

The CUDA model it checks, for one launch:
- program order orders each thread's events;
- `__syncthreads` (BAR) orders all threads of one block; `__syncwarp` (SYNCWARP)
  orders the lanes of one warp, a sync of some of its lanes (`lanes_sync(mask)`: a tile,
  `__syncwarp(mask)`, a coalesced group) orders those lanes; nothing orders different blocks;
- two accesses race when they are unordered and conflict: not both reads, and
  not two atomics whose scopes each cover the other thread (a block-scope atomic
  covers its own block only, a device-scope atomic covers the grid).
- synchronisation through memory (docs/memory-model.md), as PTX's memory model defines it: a
  fence (`fence(scope)`) followed in its thread by a strong write to a flag is a release; a
  strong read of the flag that observes it, or a later read-modify-write of the flag that
  continues its release sequence, followed in the reader's thread by a fence (or, as the CUDA
  Programming Guide's own threadfence example relies on, a `__syncthreads`), is an acquire; the
  release orders what its thread did before the fence against what the acquirer does after its
  fence, when every scope involved (both fences, the write and the read) includes both threads
  (block scope: one block). The release's own write is ordered before the acquirer too. Flags
  are words of their own (`flag_op`); the checked word's atomics (BA, GA) are read-modify-writes
  of it, so a counter such as threadFenceReduction's is both a flag and the word checked.
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


# -- synchronisation through memory: scopes, fences, flags
BLOCK, DEVICE = "B", "G"                # scopes: one block, the whole grid (system: as device)
FENCES = (f"F.{BLOCK}", f"F.{DEVICE}")  # __threadfence_block(), __threadfence()
FLAG_OPS = ("LD", "ST", "RMW")          # strong (atomic or volatile) read, write, read-modify-write


def fence(scope: str) -> str:
    return f"F.{scope}"


def fence_scope(kind: str) -> str | None:
    """The scope of a fence event; None for any other event."""
    return kind[2:] if kind in FENCES else None


def flag_op(op: str, scope: str, flag: int = 1) -> str:
    """A strong access of flag `flag` (1, 2, ...: words other than the one checked)."""
    return f"{op}.{scope}:{flag}"


def flag_of(kind: str) -> tuple[str, str, int] | None:
    """(op, scope, flag) of a flag access; the checked word's atomics are read-modify-writes of
    flag 0; None for any other event."""
    if kind in ("BA", "GA"):
        return "RMW", BLOCK if kind == "BA" else DEVICE, 0
    if ":" in kind and kind.split(".", 1)[0] in FLAG_OPS:
        head, flag = kind.split(":")
        op, scope = head.split(".")
        return op, scope, int(flag)
    return None


def narrower(a: str, b: str) -> str:
    return BLOCK if BLOCK in (a, b) else DEVICE


@dataclass(frozen=True)
class Release:
    """What a release makes known to whoever acquires it: its thread's clocks at the fence
    (`vc`), single accesses known besides (`extra`: the release's own write, and what its thread
    knew so), its scope (the narrower of the fence's and the write's) and its thread's block."""
    vc: tuple
    extra: frozenset
    scope: str
    block: int


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
    # synchronisation through memory (empty until a trace uses it)
    extra: list[frozenset] = field(default_factory=list)      # single accesses (thread, ts) each thread knows
    fenced: dict = field(default_factory=dict)                # thread -> (vc, extra, scope) at its last fence
    pending: dict = field(default_factory=dict)               # thread -> releases its reads observed, not yet acquired
    flags: dict = field(default_factory=dict)                 # flag -> the releases its value carries

    def __post_init__(self) -> None:
        if not self.vc:
            n = self.grid.threads
            self.vc = [[1 if i == t else 0 for i in range(n)] for t in range(n)]
        if not self.extra:
            self.extra = [frozenset()] * self.grid.threads

    def copy(self) -> "Oracle":
        return Oracle(self.grid, [row[:] for row in self.vc], self.accesses[:], self.extra[:], dict(self.fenced),
                      dict(self.pending), dict(self.flags))

    def _sync(self, threads) -> None:
        threads = list(threads)
        joined = [max(self.vc[t][i] for t in threads) for i in range(self.grid.threads)]
        known = frozenset().union(*(self.extra[t] for t in threads))
        for t in threads:
            self.vc[t] = joined[:]
            self.vc[t][t] += 1
            self.extra[t] = known

    def _acquire(self, t: int, scope: str | None) -> None:
        """t's reads since its last fence acquire the releases they observed, where every scope
        includes both threads (`scope`: the fence's; None: a barrier, at the reads' own scopes)."""
        for rel, read_scope in self.pending.pop(t, ()):
            s = narrower(rel.scope, read_scope if scope is None else narrower(read_scope, scope))
            if s == DEVICE or rel.block == self.grid.block_of(t):
                self.vc[t] = [max(a, b) for a, b in zip(self.vc[t], rel.vc)]
                self.extra[t] = self.extra[t] | rel.extra

    def _fence(self, t: int, scope: str) -> None:
        self._acquire(t, scope)
        self.fenced[t] = (tuple(self.vc[t]), self.extra[t], scope)
        self.vc[t][t] += 1          # what t does from now on is after the fence

    def _flag(self, t: int, op: str, scope: str, flag: int, ts: int) -> None:
        """A strong access of a flag (ts: the access's clock when the flag is the checked word)."""
        seq = self.flags.get(flag, ())
        if op in ("LD", "RMW"):     # observes the value last written, and the releases it carries
            self.pending[t] = self.pending.get(t, ()) + tuple((rel, scope) for rel in seq)
        if op in ("ST", "RMW"):
            mine = ()
            if t in self.fenced:
                vc, extra, fscope = self.fenced[t]
                own = frozenset({(t, ts)}) if flag == 0 else frozenset()
                mine = (Release(vc, extra | own, narrower(fscope, scope), self.grid.block_of(t)),)
            # a store starts the flag's value afresh; a read-modify-write continues its release sequence
            self.flags[flag] = (seq if op == "RMW" else ()) + mine

    def event(self, ev) -> bool:
        """Apply one event; True when it completes a race."""
        kind, t = ev
        if kind == BAR:
            threads = self.grid.block_threads(self.grid.block_of(t))
            for u in threads:
                self._acquire(u, None)
            self._sync(threads)
            for u in threads:       # a barrier is a fence of block scope
                self.fenced[u] = (tuple(self.vc[u]), self.extra[u], BLOCK)
                self.vc[u][u] += 1
            return False
        scope = fence_scope(kind)
        if scope is not None:
            self._fence(t, scope)
            return False
        flag = flag_of(kind)
        if flag is not None and flag[2] != 0:
            self._flag(t, *flag, ts=0)
            return False
        if kind == SYNCWARP:
            self._sync(self.grid.warp_threads(self.grid.warp_of(t)))
            return False
        mask = lanes_of(kind)
        if mask is not None:
            self._sync(u for u in self.grid.warp_threads(self.grid.warp_of(t)) if mask >> (u % self.grid.lanes) & 1)
            return False
        mine, known = self.vc[t], self.extra[t]
        race = any(p != t and mine[p] < ts and (p, ts) not in known and conflict(k, p, kind, t, self.grid)
                   for p, k, ts in self.accesses)
        ts = mine[t]
        self.accesses.append((t, kind, ts))
        mine[t] += 1                # (each access its own clock: a release's own write names it alone)
        if flag is not None:        # an atomic of the checked word: a read-modify-write of flag 0
            self._flag(t, *flag, ts=ts)
        return race


def first_race(trace, grid: Grid) -> int | None:
    o = Oracle(grid)
    for i, ev in enumerate(trace):
        if o.event(ev):
            return i
    return None
