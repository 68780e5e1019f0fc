"""Algorithm 1 in Python: one shadow record per word, the generated table, and the
same input computation as the CUDA header (runtime/include/hirace/update.h).

Used by the model checker for speed; the checker also drives the header's own
routine, compiled for the host, over the same traces (hirace.modelcheck)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from . import fsm
from .oracle import BAR, BLOCK, DEVICE, SYNCWARP, Grid, fence_scope, flag_of, lanes_of, narrower

_TABLE = fsm.table()
_RACE = fsm.STATE_INDEX[fsm.RACE]
_A = {k: i for i, k in enumerate(fsm.ACCESSES)}
_WARP_MULTI = fsm.warp_multi_states()
_ONE_ACCESSOR = fsm.one_accessor_states()
_ATOMIC = fsm.atomic_states()
_READ_THROUGH = {fsm.STATE_INDEX[s]: fsm.STATE_INDEX[n] for s in fsm.STATES if (n := fsm.read_through_memory(s))}
_READERS = fsm.reader_states()
_AFTER_WRITER = fsm.STATE_INDEX[fsm.AFTER_WRITER]


@dataclass(frozen=True)
class Entry:
    """A release of block `block` known to someone: its stamp (a launch-wide count of releases),
    the releasing thread and its clocks at its fence (what it did before is ordered before the
    release), and, in a flag, `only`: the block it synchronises with (a release of block scope), and
    `via`: the block of the release that put it into the flag (its own, or one whose thread knew it): an
    acquire of block scope synchronises with that release, so it takes the entry only in that block."""
    stamp: int
    block: int
    tid: int
    bclk: int
    wclk: int
    only: int = -1
    via: int = -1


@dataclass(frozen=True)
class Known:
    """An entry a block learnt, and who learnt it: the acquiring thread knows it from then on,
    the block's other threads once they pass a barrier after it."""
    entry: Entry
    tid: int
    bclk: int


@dataclass
class MemorySync:
    """The runtime's record of synchronisation through memory (docs/memory-model.md): what each
    block knows of each block's releases, what each flag's value carries, each thread's last
    fence and its last strong read that a fence has not yet made an acquire."""
    stamp: int = 0
    known: dict = field(default_factory=dict)     # (block, of block) -> Known
    flags: dict = field(default_factory=dict)     # flag -> (version, {block: Entry})
    fenced: dict = field(default_factory=dict)    # thread -> (bclk, wclk, scope) after its last fence
    pending: dict = field(default_factory=dict)   # thread -> (flag, version, scope) of its last strong read
    unreleased: dict = field(default_factory=dict)  # flag -> its strong accesses that were no release
    acquired: dict = field(default_factory=dict)  # (block, flag) -> (version, tid, bclk, wclk) of its complete acquire
    scoped: dict = field(default_factory=dict)    # flag -> the block of its sequence's block-scope releases (-1: several)
    # What a read saw, where the flag changed before the fence that makes it an acquire: the version at
    # which each entry of a flag joined its value ({block: version}; a read-modify-write keeps the others'),
    # and the version of the flag's last store, which replaced every entry (0: none)
    since: dict = field(default_factory=dict)     # flag -> {block: version}
    replaced: dict = field(default_factory=dict)  # flag -> version
    # A read ordered through memory after a one-accessor history that held a write (ShadowSim.event):
    # the record it replaced and the record it left, (state, last, bclk, wclk, narrow) each; kept per
    # word (the runtime's table of them is keyed by the word's shadow; here one word is checked)
    readers: tuple | None = None
    # The entry a read-modify-write's newer release of the same block replaced, with the version it had
    # joined at (one deep): a read between the two still acquires the one it saw
    previous: dict = field(default_factory=dict)  # flag -> {block: (Entry, version)}

    def copy(self) -> "MemorySync":
        return MemorySync(self.stamp, dict(self.known), dict(self.flags), dict(self.fenced), dict(self.pending),
                          dict(self.unreleased), dict(self.acquired), dict(self.scoped),
                          {f: dict(v) for f, v in self.since.items()}, dict(self.replaced), self.readers,
                          {f: dict(v) for f, v in self.previous.items()})

    def visible(self, block: int, of: int, tid: int, bclk: int) -> Entry | None:
        k = self.known.get((block, of))
        return k.entry if k is not None and (k.tid == tid or bclk > k.bclk) else None


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
    mem: MemorySync | None = None    # synchronisation through memory (None: before any)
    marks: list[int] | None = None   # each thread's fences since its last warp-level sync (in its wclk)

    def __post_init__(self) -> None:
        if self.mem is True:             # (ShadowSim(grid, mem=True): synchronisation through memory followed)
            self.mem = MemorySync()
        if self.table is None:
            self.table = _TABLE
        if self.bclk is None:
            self.bclk = [0] * self.grid.threads
            self.wclk = [0] * self.grid.threads
            self.narrow = [0] * self.grid.threads
            self.full = [0] * self.grid.threads
        if self.marks is None:
            self.marks = [0] * self.grid.threads

    def copy(self) -> "ShadowSim":
        return ShadowSim(self.grid, self.state, self.last, self.last_bclk, self.last_wclk, self.last_narrow,
                         self.bclk[:], self.wclk[:], self.narrow[:], self.full[:], self.table,
                         None if self.mem is None else self.mem.copy(), self.marks[:])

    # ---------------------------------------------------------------- synchronisation through memory
    def _marker(self, t: int) -> None:
        """A point in t's program order that its later records tell apart (a fence): its warp
        clock one further, counted in `marks` so that other lanes are not taken as synced."""
        self.wclk[t] += 1
        self.marks[t] += 1

    def _acquire(self, t: int, scope: str | None) -> None:
        """t's last strong read becomes an acquire (a fence of `scope` after it; None: a barrier,
        at the read's own scope): what the value it read carried, t learns. Where the flag changed
        since the read, only by read-modify-writes (no store replaced its entries), the entries that
        joined it by the read's version are still those the read saw, and where a later release of a
        block replaced its entry, the one it replaced, if that one had joined by the read's version
        (`previous`, one deep: a second replacement loses it, fewer orderings); the acquire is then not
        the complete one of the flag's current value."""
        m, g = self.mem, self.grid
        flag, version, read_scope = m.pending.pop(t, (None, None, None))
        if flag is None:
            return
        current, entries = m.flags.get(flag, (0, {}))
        changed = current != version
        if changed:
            if m.replaced.get(flag, 0) > version:
                return
            since, previous, seen = m.since.get(flag, {}), m.previous.get(flag, {}), {}
            for k, e in entries.items():
                if since.get(k, 0) <= version:
                    seen[k] = e
                elif k in previous and previous[k][1] <= version:
                    seen[k] = previous[k][0]
            entries = seen
        b = g.block_of(t)
        complete = not changed
        for e in entries.values():
            s = narrower(read_scope, read_scope if scope is None else scope)
            if e.only >= 0:
                s = BLOCK if e.only == b else None
            if s is None or (s == BLOCK and e.via != b):
                complete = False
                continue
            old = m.known.get((b, e.block))
            if old is None or e.stamp > old.entry.stamp:
                m.known[(b, e.block)] = Known(e, t, self.bclk[t])
        # every release the value carries synchronised with t (a block's entry keeps its latest
        # release: one of block scope marks the flag's sequence, `scoped`)
        scoped = m.scoped.get(flag, -2)
        complete = complete and scoped in (-2, b) and narrower(read_scope, read_scope if scope is None else scope) == DEVICE or (
            complete and scoped in (-2, b) and all(e.block == b for e in entries.values()))
        # kept per flag: an acquire of another flag later (a volatile read in shared memory, then a
        # barrier) leaves it; one that is not complete leaves an earlier complete one of this value
        if complete:
            m.acquired[(b, flag)] = (version, t, self.bclk[t], self.wclk[t])

    def _flag(self, t: int, op: str, scope: str, flag: int) -> None:
        m, g = self.mem, self.grid
        b = g.block_of(t)
        version, entries = m.flags.get(flag, (0, {}))
        if op in ("LD", "RMW"):
            m.pending[t] = (flag, version, scope)
        if op == "LD" or t not in m.fenced:     # (the thread's and its block clock, or several: -1)
            m.unreleased[flag] = (t, self.bclk[t], self.wclk[t]) if m.unreleased.get(flag, (t,))[0] == t else (-1,)
        if op == "LD":
            return
        if t not in m.fenced:         # no fence before: a store ends the flag's release sequence
            if op == "ST":
                m.stamp += 1
                m.flags[flag] = (m.stamp, {})
                m.scoped.pop(flag, None)
                m.since[flag], m.replaced[flag], m.previous[flag] = {}, m.stamp, {}
            return
        bclk, wclk, fscope = m.fenced[t]
        only = b if narrower(fscope, scope) == BLOCK else -1
        m.stamp += 1
        carried = dict(entries) if op == "RMW" else {}
        since = dict(m.since.get(flag, {})) if op == "RMW" else {}
        previous = dict(m.previous.get(flag, {})) if op == "RMW" else {}
        if op == "ST":
            m.replaced[flag] = m.stamp
        mine = [Entry(m.stamp, b, t % (g.warps * g.lanes), bclk, wclk, only)]
        mine += [k.entry for (kb, _), k in m.known.items() if kb == b and (k.tid == t or self.bclk[t] > k.bclk)]
        for e in mine:
            e2 = replace(e, via=b) if only < 0 else replace(e, only=only, via=b)
            old = carried.get(e2.block)
            if old is None or e2.stamp > old.stamp:
                if old is not None:
                    previous[e2.block] = (old, since.get(e2.block, 0))
                carried[e2.block] = e2
                since[e2.block] = m.stamp
        m.flags[flag] = (m.stamp, carried)
        m.since[flag] = since
        m.previous[flag] = previous
        before = m.scoped.get(flag, -2) if op == "RMW" else -2
        if only >= 0:
            before = only if before in (-2, only) else -1
        if before == -2:
            m.scoped.pop(flag, None)
        else:
            m.scoped[flag] = before
        if op == "RMW":
            m.pending[t] = (flag, m.stamp, scope)   # (its own write is what it read past)

    def after_every_release(self, t: int) -> bool:
        """Whether t (its block's complete acquire of the checked word, visible to t) read the word's
        current value, and every strong access of the word was a release: t is then ordered after all."""
        m, g = self.mem, self.grid
        u = m.unreleased.get(0)     # the accesses that were no release: t's own, before a barrier t passed,
        if u is not None and u[0] != t and not (u[0] >= 0 and self._covered(t, *u)):   # or before a release t knows
            return False
        version, tid, bclk, _wclk = m.acquired.get((self.grid.block_of(t), 0), (None,) * 4)
        return version == m.flags.get(0, (0, {}))[0] and (tid == t or self.bclk[t] > bclk)

    def _sync_after_acquire(self, t: int, sync: int) -> int:
        """Of a barrier (2) or warp sync (1) since L's access, the one that also came after the
        acquire: the threads it orders after X are ordered after everything too."""
        _version, _tid, bclk, wclk = self.mem.acquired[(self.grid.block_of(t), 0)]
        if sync == 2 and self.bclk[t] > bclk:
            return 2
        return 1 if sync >= 1 and self.wclk[t] - self.marks[t] > wclk else 0

    def _covered(self, t: int, u: int, bclk: int, wclk: int) -> bool:
        """Whether an access by u at clocks (bclk, wclk) is ordered before t: a barrier of their block
        t passed since, or a release of u's block t knows that came after it."""
        g = self.grid
        if g.block_of(u) == g.block_of(t) and self.bclk[t] > bclk:
            return True
        e = self.mem.visible(g.block_of(t), g.block_of(u), t, self.bclk[t])
        return e is not None and (bclk < e.bclk or (u % (g.warps * g.lanes) == e.tid and wclk < e.wclk))

    def ordered_through_memory(self, t: int) -> bool:
        """Whether a release of L's block that t knows comes after L's access: L's thread
        released after a fence that followed the access, or after a barrier that followed it."""
        if self.mem is None:
            return False
        return self._covered(t, self.last, self.last_bclk, self.last_wclk)

    def record(self) -> tuple:
        """The shadow record as the runtime keeps it: (state, last, its bclk, wclk, narrowing)."""
        return self.state, self.last, self.last_bclk, self.last_wclk, self.last_narrow

    def after_access(self, t: int, record: tuple) -> bool:
        """Whether t is ordered after the access `record` names (as record() gives it: one accessor's, in a
        state whose warp level is its alone), one that came before now: t made it (program order), or a
        barrier or warp-level sync orders them (the table's inputs), or a release of its block that t knows
        came after it (_covered)."""
        _state, u, bclk, wclk, _narrow = record
        if t == u:
            return True
        if self.inputs(t, record)[1] != 0:     # (a sync only where it is trusted: fsm.effective_sync)
            return True
        return self._covered(t, u, bclk, wclk)

    def inputs(self, t: int, record: tuple | None = None) -> tuple[int, int]:
        """(relation, sync) of an access by t against the record (update.h inputs), or against `record`
        (as record() gives it)."""
        g = self.grid
        state, last, last_bclk, last_wclk, last_narrow = self.record() if record is None else record
        if g.block_of(t) != g.block_of(last):
            return 3, 0
        block = self.bclk[t] > last_bclk
        b, w = (2, 2) if block else (0, 1)
        after_full = last_wclk < self.full[t]   # a sync of the whole warp since L's access
        # X's group finer than L's, and L's warp level holds several lanes (some maybe outside X's)
        if self.narrow[t] > last_narrow and _WARP_MULTI >> state & 1:
            return (1, w) if after_full else (2, b)
        if t == last:
            return 0, w if self.wclk[t] - self.marks[t] > last_wclk else b
        if g.warp_of(t) == g.warp_of(last):
            synced = last_wclk < self.wclk[t] - self.marks[t]   # (of L's group: a sync of both since L's access)
            if self._one_group(t, last, max(self.narrow[t], last_narrow)):   # one group of the finer
                return 1, w if synced else b
            if (synced and self._one_group(t, last, self.narrow[t])) or after_full:   # X's last sync took L
                return 1, w
        return 2, b

    def _one_group(self, t: int, last: int, n: int) -> bool:
        width = max(1, self.grid.lanes >> n)
        return t % self.grid.lanes // width == last % self.grid.lanes // width

    def event(self, ev) -> bool:
        kind, t = ev
        g = self.grid
        scope, flag = fence_scope(kind), flag_of(kind)
        if kind == BAR:
            for u in g.block_threads(g.block_of(t)):
                if self.mem is not None:
                    self._acquire(u, None)
                self.bclk[u] += 1
                if self.mem is not None:   # a barrier is a fence of block scope
                    self.mem.fenced[u] = (self.bclk[u], self.wclk[u], BLOCK)
            return False
        if scope is not None:
            if self.mem is None:
                raise ValueError("a fence in a trace of a model that does not follow memory (ShadowSim(mem=True))")
            self._acquire(t, scope)
            self._marker(t)
            self.mem.fenced[t] = (self.bclk[t], self.wclk[t], scope)
            return False
        if flag is not None and flag[2] != 0:
            if self.mem is not None:
                self._flag(t, *flag)
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
                self.marks[u] = 0
                self.narrow[u] = n
                if n == 0:
                    self.full[u] = joined
            return False
        state = self.state
        rel, sync = (0, 0) if state == 0 else self.inputs(t)
        through = False
        # no barrier or warp sync since L's access (but a fence's mark on X's own clock, if L is X)
        if (state != 0 and self.mem is not None and sync == 0 and _ONE_ACCESSOR >> state & 1 and t != self.last
                and self.ordered_through_memory(t)):
            rel = 0              # after L and all before it: as L's own thread, next in its program order
            through = True
        new = self.table[fsm.table_index(_A[kind], sync, rel, state)]
        if new == _RACE and state in _ATOMIC and self.mem is not None and self.after_every_release(t):
            # after every access, all atomics: as one accessor's, next in its program order (after
            # a barrier or warp sync too where it came after the acquire: the threads it orders
            # after X are then ordered after everything)
            new = self.table[fsm.table_index(_A[kind], self._sync_after_acquire(t, sync), 0, _ATOMIC[state])]
        if through and kind == "R" and state in _READ_THROUGH:
            new = _READ_THROUGH[state]     # (SW_1X_X_X marked: the reader's own read keeps the record)
        if kind == "R" and new != _RACE and self.mem is not None:
            kept, mine = self.mem.readers, (new, t, self.bclk[t], self.wclk[t], self.narrow[t])
            if kept is not None and kept[1] == self.record() and _READERS >> new & 1:
                # only reads since the kept record, and a record a later non-read would change: still so
                self.mem.readers = (kept[0], mine)
            elif through and state in _READ_THROUGH:
                # a read through memory after a history that held a write: the record it replaced is kept
                # beside the one it leaves
                self.mem.readers = (self.record(), mine)
        elif new == _RACE and kind == "R" and self.mem is not None:
            if state == _AFTER_WRITER and self.after_access(t, self.record()):
                return False     # ordered after the one access before the reads: the record stays
            kept = self.mem.readers
            if (_READERS >> state & 1 and kept is not None and kept[1] == self.record()
                    and self.after_access(t, kept[0])):
                # the record is still the reader's, which has only read since the history kept before it, and
                # t is ordered after that history's last accessor: reads of several threads after it, the
                # record keeps that accessor (MB_RW)
                self.state, self.last, self.last_bclk, self.last_wclk, self.last_narrow = (_AFTER_WRITER, *kept[0][1:])
                return False
        self.state, self.last, self.last_bclk, self.last_wclk = new, t, self.bclk[t], self.wclk[t]
        self.last_narrow = self.narrow[t]
        if flag is not None and self.mem is not None:
            self._flag(t, *flag)
        return new == _RACE
