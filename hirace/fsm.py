"""The access-history state machine: the one specification.

Per monitored word hirace keeps one shadow record: a state, the id of the last
accessing thread L, and L's block-barrier and warp-barrier clocks. At every
access X the runtime computes, as the paper's Algorithm 1 does,

- relation: S (X is L), W (same warp), B (same block, other warp), G (other block);
- sync: B when X's block clock is ahead of L's, else W when X's warp clock is
  ahead, else U.  Warp clocks of different warps and block clocks of different
  blocks are not comparable, so the machine only trusts W for relations S/W and
  B for relations S/W/B (`effective_sync`);

and looks up new_state = TABLE[access, sync, relation, state]; RACE reports.

Why one record can be exact (derived here, checked by hirace.modelcheck).  The
history that still matters to a future access X has three levels, all relative
to L:
  warp level:  accesses by L's warp in L's current warp epoch (no __syncwarp since);
  block level: accesses by L's block in L's current block epoch (no __syncthreads since);
  grid level:  every access in the launch.
Accesses of two different threads in one warp epoch are unordered, and so are
accesses of two warps in one block epoch, and of two blocks ever.  In a race-free
history, a level touched by two or more lanes (warps, blocks) is therefore
homogeneous: only reads, or only atomics (at grid level: only device-scope
atomics).  Then any clashing X clashes with an access of *another* thread, which
is a race, whichever thread X is; and a level touched by L alone clashes with X
exactly when X is not L.  Once a level is shared, the levels below it no longer
matter (a clash there is caught above), which keeps the machine small.

Lane groups (syncs of part of a warp: `__syncwarp(mask)`, tiles narrower than a warp,
coalesced groups).  Each warp-level sync sets the narrowing n of its lanes (`lane_narrowing`:
0 for the whole warp, the tile's for an aligned tile, groups of one lane for any other set)
and joins the warp clocks of its lanes, one past their latest (an aligned group's lanes then
count the same epochs; lanes that are no tile are apart: each steps its own). Each thread keeps
its clock after its last sync of the whole warp (`full`). The record keeps L's narrowing, and
X relates to L (same block) as:
- of one group of the finer of the two narrowings: W, synced when X's warp clock passed L's;
- else W and warp-synced when X's last sync took L's lane after L's access, or a sync of the
  whole warp came after it (L's clock below X's `full`); else B (only a block barrier orders);
- when X's group is finer than L's and L's warp level holds several lanes (`warp_multi`: lanes
  of L's coarser group, some maybe outside X's), B unless a sync of the whole warp came since.
No race is ever missed (hirace.modelcheck with such syncs: `hirace verify-fsm --masks`), and a
program whose warp-level syncs all take the whole warp is checked exactly as before. After a
sync of part of a warp a race may be reported that is not there: when several lanes of X's
group accessed the word before a sync that narrowed X's group, or when the block level holds
an access a warp-level sync ordered before X (the three levels cannot tell them apart).

Kinds: R read, W write, BA block-scope atomic (atomicAdd_block ...), GA device or
system-scope atomic. A level's contents are summarised by which X would clash:
  R   reads only;        A  atomics only (block level and below);
  AG  device-scope atomics only (grid level);  AB atomics, some block-scope (grid);
  X   anything else (a write, or reads mixed with atomics): every X clashes.
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass

ACCESSES = ("R", "W", "BA", "GA")
SYNCS = ("U", "W", "B")
RELATIONS = ("S", "W", "B", "G")
# the runtime's enumerators (fsm_table.h: enum Access, Sync, Relation), in the order above
ACCESS_ENUM = ("kRead", "kWrite", "kBlockAtomic", "kDeviceAtomic")
SYNC_ENUM = ("kUnsynced", "kWarpSynced", "kBlockSynced")
RELATION_ENUM = ("kSameThread", "kSameWarp", "kSameBlock", "kOtherBlock")

# Shadow word layout (8 bytes), the one place widths are set.  The generated
# header exposes them as constants; nothing else shifts or masks.
SHADOW_FIELDS = (            # (name, bits), least significant first
    ("state", 5),
    ("tid", 10),             # thread index within its block (blockDim <= 1024)
    ("bid", 28),             # linear block index, numbered on across launches (see ThreadCtx::base)
    ("lanes", 3),            # the accessor's lane groups: warp_size >> lanes lanes (see lane_narrowing)
    ("bclk", 10),            # block-barrier clock, modulo 2^10
    ("wclk", 8),             # warp-barrier clock, modulo 2^8
)


@dataclass(frozen=True, order=True)
class State:
    """An abstract history. kind: INIT, RACE, MB (several blocks), MW (one block,
    several warps in the block epoch), SW (one block, one warp in the epoch).
    warp / warp_multi: the warp level (SW only); block / block_multi: block level;
    grid: grid-level class. memory: what synchronisation through memory left in the record
    (docs/memory-model.md, "Several readers of one release"; only its rules enter these states):
    "read" (SW_1X_X_X_MR: SW_1X_X_X whose last accessor read the word ordered through memory
    after a history that held a write, and has only read it since: its own read keeps the state,
    anything else is SW_1X_X_X's), "writer" (MB_RW: reads of several threads, each ordered after
    the one access the record keeps, which every earlier access is ordered before or at; the
    table takes every access for a race, the memory rule keeps a read ordered after that access)."""

    kind: str
    warp: str = ""
    warp_multi: bool = False
    block: str = ""
    grid: str = ""
    memory: str = ""

    @property
    def name(self) -> str:
        if self.kind in ("INIT", "RACE"):
            return self.kind
        if self.memory == "writer":
            return "MB_RW"
        if self.kind == "MB":
            return f"MB_{self.grid}"
        if self.kind == "MW":
            return f"MW_{self.block}_{self.grid}"
        mark = "_MR" if self.memory == "read" else ""
        return f"SW_{'M' if self.warp_multi else '1'}{self.warp}_{self.block}_{self.grid}{mark}"


INIT = State("INIT")
RACE = State("RACE")
# The states only synchronisation through memory enters (State.memory)
MEMORY_READ = State("SW", "X", False, "X", "X", memory="read")
AFTER_WRITER = State("MB", grid="X", memory="writer")


# ---------------------------------------------------------------- level algebra
def _kinds_class(kinds: frozenset, grid: bool) -> str:
    if kinds == {"R"}:
        return "R"
    if "R" in kinds or "W" in kinds:
        return "X"
    if grid:
        return "AG" if kinds == {"GA"} else "AB"
    return "A"


_CLASS_KINDS = {  # a representative kind set for each class
    "R": frozenset({"R"}), "A": frozenset({"GA"}), "AG": frozenset({"GA"}),
    "AB": frozenset({"BA"}), "X": frozenset({"W"}),
}


def join(cls: str, access: str, grid: bool = False) -> str:
    """The class of a level after `access` joins it."""
    if cls == "X":
        return "X"
    if grid and cls == "AB" and access in ("BA", "GA"):
        return "AB"
    return _kinds_class(_CLASS_KINDS[cls] | {access}, grid)


def clash_same_block(cls: str, access: str) -> bool:
    """Would `access` by another thread of the same block conflict with a level
    of class `cls`, were they unordered?  (Atomics of any scope cover one block.)"""
    if access == "W" or cls == "X":
        return True
    if cls == "R":
        return access != "R"
    return access == "R"        # A, AG, AB: atomics only


def clash_other_block(cls: str, access: str) -> bool:
    """Would `access` from another block conflict with a grid level of class cls?"""
    if cls == "R":
        return access != "R"
    if cls == "AG":
        return access != "GA"
    return True                 # AB (block-scope atomics cover one block), X


def lane_narrowing(mask: int, lane: int, warp_size: int) -> int:
    """How much a warp-level sync of the lanes in `mask` (the caller's lane among them) narrows the
    caller's lane groups: 0 for the whole warp; log2(warp_size / p) for an aligned group of p lanes
    (a tile: `tiled_partition<p>`, `__syncwarp(0x0000ffff)`); log2(warp_size) (groups of one lane)
    for any other set (a coalesced group, an arbitrary mask). A thread's groups only narrow."""
    full = (1 << warp_size) - 1
    mask &= full
    p = bin(mask).count("1")
    if mask == full:
        return 0
    if p and p & (p - 1) == 0 and mask == ((1 << p) - 1) << (lane & ~(p - 1)):
        return (warp_size // p).bit_length() - 1
    return warp_size.bit_length() - 1


def effective_sync(sync: str, relation: str) -> str:
    """Trust a clock comparison only between threads whose clocks are comparable."""
    if relation in ("S", "W"):
        return sync
    if relation == "B":
        return "B" if sync == "B" else "U"
    return "U"


# ---------------------------------------------------------------- the transition function
def step(state: State, access: str, sync: str, relation: str) -> State:
    """new state after `access`, given its sync status and relation to the last accessor."""
    if state == RACE:
        return RACE
    if state == INIT:
        return State("SW", access_class(access), False, access_class(access),
                     _kinds_class(frozenset({access}), True))
    if state.memory == "read":    # SW_1X_X_X's, but its last accessor's read keeps the mark
        plain = dataclasses.replace(state, memory="")
        new = step(plain, access, sync, relation)
        return state if access == "R" and new == plain else new
    sync = effective_sync(sync, relation)
    if state.kind == "MB":
        return RACE if clash_other_block(state.grid, access) else state
    grid_new = join(state.grid, access, grid=True)
    if relation == "G":
        if clash_other_block(state.grid, access):
            return RACE
        return State("MB", grid=grid_new)
    # same block as the last accessor from here on
    if sync == "B":
        a = access_class(access)
        return State("SW", a, False, a, grid_new)
    if state.kind == "MW":
        if clash_same_block(state.block, access):
            return RACE
        return State("MW", block=join(state.block, access), grid=grid_new)
    # SW: one warp (L's) touched the block epoch
    if relation == "B":
        if clash_same_block(state.block, access):
            return RACE
        return State("MW", block=join(state.block, access), grid=grid_new)
    a = access_class(access)
    if sync == "W":               # X's warp epoch is newer: the warp level restarts with X
        return State("SW", a, False, join(state.block, access), grid_new)
    if relation == "W" or state.warp_multi:
        if clash_same_block(state.warp, access):
            return RACE
        return State("SW", join(state.warp, access), True, join(state.block, access), grid_new)
    # relation S, no sync, L alone in its warp epoch: program order
    return State("SW", join(state.warp, access), False, join(state.block, access), grid_new)


def access_class(access: str) -> str:
    return _kinds_class(frozenset({access}), False)


# ---------------------------------------------------------------- enumeration and table
def reachable_states() -> list[State]:
    """Every state reachable from INIT or from the states memory's rules enter, INIT first, RACE
    last, the rest sorted."""
    seen = {INIT, MEMORY_READ, AFTER_WRITER}
    todo = list(seen)
    while todo:
        s = todo.pop()
        for a, sy, r in itertools.product(ACCESSES, SYNCS, RELATIONS):
            n = step(s, a, sy, r)
            if n not in seen:
                seen.add(n)
                todo.append(n)
    middle = sorted(s for s in seen if s not in (INIT, RACE))
    return [INIT, *middle, RACE]


STATES = reachable_states()
STATE_INDEX = {s: i for i, s in enumerate(STATES)}

def one_accessor_states() -> int:
    """Bit mask of the states whose whole history is ordered before or at its last accessor L:
    one block, one warp in the block epoch, one lane in the warp epoch (earlier epochs end at a
    barrier or warp sync L passed). An access ordered after L through memory (docs/memory-model.md)
    is then ordered after everything, and the word starts afresh."""
    return sum(1 << STATE_INDEX[st] for st in STATES if st.kind == "SW" and not st.warp_multi)


def atomic_states() -> dict[int, int]:
    """The states whose whole history is atomics (grid level AG or AB), each with the state of
    one accessor that did the same: an access ordered after every access through memory (a
    counter whose every access was a release, docs/memory-model.md) is taken as that accessor's
    own after a barrier."""
    one = {st.grid: STATE_INDEX[st] for st in STATES if st.kind == "SW" and not st.warp_multi and st.warp == "A"
           and st.block == "A" and st.grid in ("AG", "AB")}
    return {STATE_INDEX[st]: one[st.grid] for st in STATES if st.grid in ("AG", "AB")}


def read_through_memory(state: State) -> State | None:
    """The state a read takes that is ordered through memory after the one-accessor history `state`
    (the read is taken as the last accessor's own, next in its program order) where that history holds
    an access a read clashes with (its grid class is not reads only); None for other states. The
    runtime then keeps the record it replaced beside the new one (docs/memory-model.md): its own read
    keeps SW_1X_X_X marked (MEMORY_READ), so that the record stays the same only while it reads."""
    if state.kind != "SW" or state.warp_multi or state.grid == "R":
        return None
    new = step(state, "R", "U", "S")
    return MEMORY_READ if new == dataclasses.replace(MEMORY_READ, memory="") else new


def read_through_states() -> int:
    """The states (a bit each) for which read_through_memory gives a state."""
    return sum(1 << STATE_INDEX[st] for st in STATES if read_through_memory(st) is not None)


def reader_states() -> int:
    """The states (a bit each) read_through_memory gives: in these, a record the runtime kept beside
    the one it replaced names a reader that has only read since (its own read keeps the record)."""
    return sum(1 << STATE_INDEX[n] for n in {read_through_memory(st) for st in STATES} if n is not None)


def warp_multi_states() -> int:
    """The states (a bit each) whose warp level holds accesses of several lanes."""
    return sum(1 << STATE_INDEX[st] for st in STATES if st.kind == "SW" and st.warp_multi)


# Table index = bit concatenation (access | sync | relation | state), as in the paper.
ACCESS_BITS, SYNC_BITS, RELATION_BITS = 2, 2, 2
STATE_BITS = dict(SHADOW_FIELDS)["state"]
assert len(STATES) <= 1 << STATE_BITS, "too many states for the shadow word's state field"


def table_index(access: int, sync: int, relation: int, state: int) -> int:
    return (((access << SYNC_BITS | sync) << RELATION_BITS | relation) << STATE_BITS) | state


def table() -> list[int]:
    """The flat lookup table the header uses (unused slots map to RACE... never read)."""
    size = 1 << (ACCESS_BITS + SYNC_BITS + RELATION_BITS + STATE_BITS)
    flat = [STATE_INDEX[RACE]] * size
    for (ai, a), (si, sy), (ri, r), s in itertools.product(
            enumerate(ACCESSES), enumerate(SYNCS), enumerate(RELATIONS), STATES):
        flat[table_index(ai, si, ri, STATE_INDEX[s])] = STATE_INDEX[step(s, a, sy, r)]
    return flat


def rows():
    """(access, sync, relation, state name, new state name) for every input."""
    for a, sy, r, s in itertools.product(ACCESSES, SYNCS, RELATIONS, STATES):
        yield a, sy, r, s.name, step(s, a, sy, r).name
