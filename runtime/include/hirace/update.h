// Algorithm 1: the lock-free shadow update at one access.
#ifndef HIRACE_UPDATE_H
#define HIRACE_UPDATE_H

#include "config.h"
#include "cudacommon/protocol.h"
#include "fsm_table.h"
#if HIRACE_MEMORY_SYNC
#include "memory_sync.h"
#endif

namespace hirace {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: this unit's configuration's own)

// A thread's block clock word (its first clock, clocks.h): the block clock (bits 0-15, stopped at
// 2^kBclkBits: wrapped), and the grid syncs it passed (bits 16-31, up to the launch's grid_epochs).
struct BlockWord {
  static constexpr unsigned kWrapped = 1u << ShadowWord::kBclkBits;   // the clock stops here
  CCTK_HD static constexpr unsigned count(unsigned w) { return w & 0xffffu; }
  CCTK_HD static constexpr unsigned grid_syncs(unsigned w) { return w >> 16; }
};

// A thread's warp clock word (its second clock, clocks.h): the warp clock (bits 0-8, stopped at
// 2^kWclkBits: wrapped), the warp clock after its last sync of the whole warp (bits 9-17), its
// lane-group narrowing (bits 18-20), and the narrowing of a `__syncwarp(mask)` it is entering
// (bits 21-23, 7: none); with HIRACE_MEMORY_SYNC, the fences since its last warp-level sync (bits 24-31).
struct WarpWord {
  static constexpr unsigned kClockBits = 9, kFullShift = 9, kNarrowShift = 18, kPendingShift = 21;
  static constexpr unsigned kClockMask = (1u << kClockBits) - 1, kNoPending = 7;
  static constexpr unsigned kWrapped = 1u << ShadowWord::kWclkBits;   // the clock stops here
  CCTK_HD static constexpr unsigned count(unsigned w) { return w & kClockMask; }
  CCTK_HD static constexpr unsigned full(unsigned w) { return (w >> kFullShift) & kClockMask; }
  CCTK_HD static constexpr unsigned narrow(unsigned w) { return (w >> kNarrowShift) & 7u; }
  CCTK_HD static constexpr unsigned pending(unsigned w) { return ((w >> kPendingShift) & 7u) ^ kNoPending; }
  CCTK_HD static constexpr unsigned make(unsigned count, unsigned full, unsigned narrow, unsigned pending = kNoPending) {
    return count | full << kFullShift | narrow << kNarrowShift | (pending ^ kNoPending) << kPendingShift;
  }
#if HIRACE_MEMORY_SYNC
  // A fence's mark (docs/memory-model.md): the warp clock one step on, so that the thread's records
  // before the fence tell apart from those after; counted in `marks` (reset with the clock word at each
  // warp-level sync: make() leaves them 0), so that other lanes do not take it for a sync of theirs.
  // (A clock that stops here stops its marks too: it reads as wrapped, ordered, whatever they say.)
  static constexpr unsigned kMarksShift = 24;
  CCTK_HD static constexpr unsigned marks(unsigned w) { return w >> kMarksShift; }
  CCTK_HD static constexpr unsigned with_marks(unsigned w, unsigned marks) {
    return (w & ((1u << kMarksShift) - 1)) | marks << kMarksShift;
  }
  CCTK_HD static constexpr unsigned marked(unsigned w) {
    return count(w) >= kWrapped ? w : count(w) + 1 == kWrapped ? w + 1 : with_marks(w + 1, marks(w) + 1);
  }
#endif
};

// What the runtime knows about the accessing thread.
struct ThreadCtx {
  unsigned tid;        // thread index within its block
  unsigned bid;        // linear block index
  unsigned bclk;       // __syncthreads passed so far
  unsigned warp;       // its warp clock word (WarpWord): the warp clock, its lane groups
  unsigned warp_size;  // 32 on hardware; the model checker uses smaller warps
  // Launch epochs: `bid` counts on from the blocks of earlier launches (the host advances `base`
  // by each launch's grid), so a record whose block is below `base` is an earlier launch's, which
  // the launch boundary orders before everything now: it reads as INIT, without a reset.
  unsigned base = 0;
  // (one packed word, not three: a check's registers are every instrumented kernel's)
  CCTK_HD unsigned wclk() const { return WarpWord::count(warp); }     // warp-level syncs passed
  // Lane groups (hirace/fsm.py): the thread's last warp-level sync took an aligned group of
  // warp_size >> narrow lanes (0: the whole warp; see lane_narrowing)
#if HIRACE_WHOLE_WARPS   // (no code of the device program syncs part of a warp: its groups are whole warps)
  CCTK_HD constexpr unsigned narrow() const { return 0; }
#else
  CCTK_HD unsigned narrow() const { return WarpWord::narrow(warp); }
#endif
  CCTK_HD unsigned full() const { return WarpWord::full(warp); }   // wclk after its last sync of the whole warp
  // The warp clock that counts its warp-level syncs: with HIRACE_MEMORY_SYNC, less the marks of its
  // fences since the last (WarpWord::marked), which sync nothing
  CCTK_HD unsigned sync_wclk() const {
#if HIRACE_MEMORY_SYNC
    return WarpWord::count(warp) - WarpWord::marks(warp);
#else
    return WarpWord::count(warp);
#endif
  }
};


// How far a warp-level sync of the lanes in `mask` narrows the lane groups of `lane`, one of them:
// 0 for the whole warp, log2(warp_size / p) for an aligned group of p lanes, else groups of one lane
// (hirace/fsm.py lane_narrowing, the specification; the model checker replays this one).
CCTK_HD inline unsigned lane_narrowing(unsigned mask, unsigned lane, unsigned warp_size) {
  unsigned full = warp_size >= 32 ? ~0u : (1u << warp_size) - 1;
  mask &= full;
  if (mask == full) return 0;
  unsigned p = 0, log_w = 0;
  for (unsigned m = mask; m; m &= m - 1) ++p;
  while ((1u << (log_w + 1)) <= warp_size) ++log_w;
  if (p && (p & (p - 1)) == 0) {
    unsigned log_p = 0;
    while ((1u << (log_p + 1)) <= p) ++log_p;
    unsigned group = (p >= 32 ? ~0u : (1u << p) - 1) << (lane & ~(p - 1));
    if (mask == group) return log_w - log_p;
  }
  return log_w;
}

// The table's inputs for an access by X against the record of L (hirace/fsm.py, lane groups): the
// relation, and the sync status (X's clocks against L's). Clocks only grow, so "ahead" is
// "different" modulo the field width. Once a thread's clock has wrapped, "equal" may hide a whole
// lap of barriers: the access is then taken as synchronised (no false alarm; the host warns that
// races within one barrier interval are no longer reported for that launch).
// log2 of a power of two (warps: 32 lanes on hardware)
CCTK_HD constexpr unsigned log2_of(unsigned v) { return v > 1 ? 1 + log2_of(v >> 1) : 0; }
// a and b in one aligned group of warp_size >> n lanes of one warp (warp_size a power of two)
CCTK_HD inline bool one_group(unsigned a, unsigned b, unsigned n, unsigned warp_size) {
  unsigned log_w = log2_of(warp_size), shift = n < log_w ? log_w - n : 0;
  return ((a & (warp_size - 1)) >> shift) == ((b & (warp_size - 1)) >> shift);
}
// The inputs where a sync of part of a warp took place (a narrowing on either side): (relation << 2
// | sync). (Written to keep few values live: a check's registers are every instrumented kernel's.)
CCTK_HD inline unsigned lane_group_inputs(ShadowWord s, const ThreadCtx &c, unsigned state, unsigned b) {
  const unsigned w = b == fsm::kBlockSynced ? b : unsigned(fsm::kWarpSynced);
  const bool wrapped = (c.wclk() >> ShadowWord::kWclkBits) != 0;
  // X's group finer than L's, L's warp level of several lanes (some maybe outside X's group)
  if (c.narrow() > s.lanes() && ((fsm::kWarpMultiStates >> state) & 1u))
    return s.wclk() < c.full() || wrapped ? fsm::kSameWarp << 2 | w : fsm::kSameBlock << 2 | b;
  const bool synced = s.wclk() < c.sync_wclk() || wrapped;   // a warp-level sync of X's since L's access
  if (s.tid() == c.tid) return fsm::kSameThread << 2 | (synced ? w : b);
  if (s.tid() / c.warp_size != c.tid / c.warp_size) return fsm::kSameBlock << 2 | b;
  const unsigned finer = s.lanes() > c.narrow() ? s.lanes() : c.narrow();
  if (one_group(s.tid(), c.tid, finer, c.warp_size)) return fsm::kSameWarp << 2 | (synced ? w : b);
  // X's last sync took L's lane after L's access, or a sync of the whole warp came after it
  if ((synced && one_group(s.tid(), c.tid, c.narrow(), c.warp_size)) || s.wclk() < c.full() || wrapped)
    return fsm::kSameWarp << 2 | w;
  return fsm::kSameBlock << 2 | b;
}

HIRACE_PART CCTK_HD inline void inputs(ShadowWord s, const ThreadCtx &c, unsigned state, unsigned *rel, unsigned *syn) {
  if (s.bid() != (c.bid & ((1ull << ShadowWord::kBidBits) - 1))) {
    *rel = fsm::kOtherBlock;
    *syn = fsm::kUnsynced;
    return;
  }
  bool block = ((c.bclk - s.bclk()) & ((1u << ShadowWord::kBclkBits) - 1)) != 0 || (c.bclk >> ShadowWord::kBclkBits);
  // (HIRACE_WHOLE_WARPS: a record of this launch's block has no lane groups either, since every record
  // of that block was made by the launch's own kernel, in this device program; an earlier launch's
  // reads as INIT and another block's returned above)
  if (!HIRACE_WHOLE_WARPS && (s.lanes() | c.narrow()) != 0) {
#if HIRACE_LANE_GROUPS
    unsigned r = lane_group_inputs(s, c, state, block ? fsm::kBlockSynced : fsm::kUnsynced);
#else   // (a unit with no sync of part of a warp, met one another unit made: only a barrier orders)
    unsigned r = (s.tid() == c.tid ? fsm::kSameThread : fsm::kSameBlock) << 2 | (block ? fsm::kBlockSynced : fsm::kUnsynced);
#endif
    *rel = r >> 2;
    *syn = r & 3u;
    return;
  }
  // no sync of part of a warp: groups are whole warps
  bool synced = s.wclk() < c.sync_wclk() || (c.wclk() >> ShadowWord::kWclkBits) != 0;
  *rel = s.tid() == c.tid ? fsm::kSameThread : s.tid() / c.warp_size == c.tid / c.warp_size ? fsm::kSameWarp
                                                                                             : fsm::kSameBlock;
  *syn = block ? fsm::kBlockSynced : synced && *rel != fsm::kSameBlock ? fsm::kWarpSynced : fsm::kUnsynced;
}

CCTK_HD inline unsigned long long cas(unsigned long long *p, unsigned long long expected,
                                        unsigned long long desired) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(p, expected, desired);
#elif defined(CUDAEMU)
  // the cpu backend runs one grid at a time (cudaemu launch.h), its threads as fibers of one OS thread
  // that switch only where the emulation yields, never inside a check: a plain compare and store (no
  // locked instruction at every update; running blocks on several OS threads would need it again)
  unsigned long long seen = *p;
  if (seen == expected) *p = desired;
  return seen;
#else
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
#endif
}

#if HIRACE_MEMORY_SYNC
// update's `slot` where the caller leaves the checked word's flag slot to be found (check.h)
constexpr unsigned kFindSlot = ~0u;
// The accessing thread as the memory-sync record knows it (memory_sync.h: its block in the launch)
CCTK_HD inline memsync::Thread memory_thread(const ThreadCtx &c) {
  return memsync::Thread{c.bid - c.base, c.tid, c.bclk, c.wclk(), WarpWord::marks(c.warp)};
}

// Whether X is ordered after the access the record `w` names (one accessor's, in a state whose warp level
// is its alone; an access that came before now): X made it (program order), or a barrier or warp-level
// sync orders them (the table's inputs give a sync only where it is trusted), or a release of its block
// that X knows came after it (memsync::covered: the record's lock, taken in `hold` where needed)
// (ShadowSim.after_access)
HIRACE_PART CCTK_HD inline bool after_access(ShadowWord w, unsigned state, const ThreadCtx &c,
                                             const memsync::MemorySync &m, memsync::Guard &hold) {
  if (w.bid() == (c.bid & ((1ull << ShadowWord::kBidBits) - 1)) && w.tid() == c.tid) return true;
  unsigned rel, syn;
  inputs(w, c, state, &rel, &syn);
  if (syn != fsm::kUnsynced) return true;
  hold.take(m.lock);
  return memsync::covered(m, memory_thread(c), w.bid() - c.base, w.tid(), w.bclk(), w.wclk());
}
#endif

// Returns true when this access completes a race (the word enters RACE now);
// *prior receives the record it replaced.
// With HIRACE_MEMORY_SYNC, `mem`: the launch's record of synchronisation through memory (null: not
// followed), `slot`: the checked word's flag slot in it (its atomics are read-modify-writes of that
// slot, which the caller applies after the update: memsync::strong); kFindSlot: the slot of `flag_word`
// (the shadow of the access's first word: every word of an access takes the flag slot of its first).
HIRACE_PART CCTK_HD inline bool update(unsigned long long *shadow, const ThreadCtx &c, fsm::Access a,
                             ShadowWord *prior = nullptr
#if HIRACE_MEMORY_SYNC
                           , const memsync::MemorySync *mem = nullptr, unsigned slot = 0,
                           const unsigned long long *flag_word = nullptr
#endif
                           ) {
  unsigned long long old = *reinterpret_cast<volatile unsigned long long *>(shadow);
  for (;;) {
    ShadowWord s(old);
    unsigned st = s.bid() < c.base ? unsigned(fsm::kInit) : s.state();
    if (st == fsm::kRace) return false;  // reported once already
    unsigned rel = fsm::kSameThread, syn = fsm::kUnsynced;
    if (st != fsm::kInit) inputs(s, c, st, &rel, &syn);
#if HIRACE_MEMORY_SYNC
    // (the record's lock where a rule below needs it, kept until the record is written: the kept records
    // of the word change with it)
    memsync::Guard hold;
    bool through = false;
    // Synchronisation through memory (ShadowSim.event, docs/memory-model.md): with no barrier or warp
    // sync since L's access, a history ordered before or at L, and a release of L's block that X knows
    // after L's access: X is taken as L's own thread, next in its program order.
    if (mem && st != fsm::kInit && syn == fsm::kUnsynced && rel != fsm::kSameThread &&
        ((fsm::kOneAccessorStates >> st) & 1u)) {
      hold.take(mem->lock);
      if (memsync::ordered_through_memory(*mem, s, s.bid() - c.base, memory_thread(c))) {
        rel = fsm::kSameThread;
        through = true;
      }
    }
#endif
    unsigned next = fsm::lookup(fsm::index(a, syn, rel, st));
#if HIRACE_MEMORY_SYNC
    // A race in a history of atomics whose every access was a release X acquired: X is the next access
    // of one accessor that made them all (after a barrier or warp sync too, where it came after the
    // acquire)
    if (mem && next == fsm::kRace && ((fsm::kAtomicStates >> st) & 1u)) {
      hold.take(mem->lock);
      // (kFindSlot: the device wiring's, the slot of the access's flag word: the shadow of its first word,
      // where memory_sync_hooks.h strong_access keys it)
      const unsigned w = slot == kFindSlot ? memsync::find_slot(*mem, (unsigned long long)flag_word, false) : slot;
      if (memsync::after_every_release(*mem, memory_thread(c), w))
        next = fsm::lookup(fsm::index(a, memsync::sync_after_acquire(*mem, memory_thread(c), syn, w), fsm::kSameThread,
                                      fsm::atomic_one_accessor(st)));
    }
    // Several readers of one release (ShadowSim.event, docs/memory-model.md): a read through memory after a
    // history that held a write keeps the record it replaces beside the one it leaves (`pair`, written with
    // the record), carried on while only reads follow; a read the table takes for a race, of a record still
    // the kept one, ordered after the access the record replaced named, takes MB_RW, the record naming that
    // access (`kept`); in MB_RW a read ordered after it leaves the record as it is.
    memsync::ReadPair *pair = nullptr;
    unsigned long long writer = 0;   // (the pair's `writer` where the pair still holds, for `kept` below)
    bool kept = false;
    if (mem && a == fsm::kRead) {
      const bool install = through && ((fsm::kReadThroughStates >> st) & 1u);
      if (install) next = fsm::read_through_memory(st);
      // (a record that does not change carries nothing: the reader's own read with its clocks takes no lock)
      if (install || (next != fsm::kRace && ((fsm::kReaderStates >> st) & 1u) && ((fsm::kReaderStates >> next) & 1u) &&
                      ShadowWord::make(next, c.tid, c.bid, c.narrow(), c.bclk, c.wclk()).bits != old)) {
        hold.take(mem->lock);
        pair = memsync::read_pair(*mem, shadow, install);
        if (pair) writer = pair->reader == old ? pair->writer : install ? old : 0;
        if (!writer) pair = nullptr;
      } else if (next == fsm::kRace && st == fsm::kAfterWriter) {
        if (after_access(s, st, c, *mem, hold)) next = st;
      } else if (next == fsm::kRace && ((fsm::kReaderStates >> st) & 1u)) {
        hold.take(mem->lock);
        const memsync::ReadPair *p = memsync::read_pair(*mem, shadow, false);
        if (p && p->reader == old && after_access(ShadowWord(p->writer), ShadowWord(p->writer).state(), c, *mem, hold)) {
          next = fsm::kAfterWriter;
          writer = p->writer;
          kept = true;
        }
      }
    }
    // (the fast paths leave the record naming an earlier accessor; the rule above asks the sync since
    // the last one: in the states it applies to, with memory followed, the record is always rewritten)
    if (!mem || !((fsm::kAtomicStates >> st) & 1u)) {
#endif
    // fast paths: the access changes nothing that later transitions read
    if (next == st && ((fsm::kAccessorFreeStates >> st) & 1u)) return false;
    if (next == st && ((fsm::kBlockOnlyStates >> st) & 1u) && rel != fsm::kOtherBlock &&
        syn != fsm::kBlockSynced)
      return false;
    // a lane of the recorded accessor's warp, with its clocks: the record would change only in the
    // lane, which no later transition reads (a warp's broadcast read of one word took a round of
    // contended CAS per lane: matmul's tile rows)
    if (next == st && ((fsm::kLaneFreeStates >> st) & 1u) && rel <= fsm::kSameWarp && syn == fsm::kUnsynced &&
        s.lanes() == c.narrow())
      return false;
#if HIRACE_MEMORY_SYNC
    }
#endif
    ShadowWord n = ShadowWord::make(next, c.tid, c.bid, c.narrow(), c.bclk, c.wclk());
#if HIRACE_MEMORY_SYNC
    if (kept) {   // MB_RW: the record names the access the reads are ordered after
      const ShadowWord w(writer);
      n = ShadowWord::make(next, w.tid(), w.bid(), w.lanes(), w.bclk(), w.wclk());
    }
#endif
    if (n.bits == old) return false;  // fast path: the record would not change
    unsigned long long seen = cas(shadow, old, n.bits);
    if (seen == old) {
#if HIRACE_MEMORY_SYNC
      if (pair) *pair = memsync::ReadPair{writer, n.bits};   // (under the record's lock: hold)
#endif
      if (prior) *prior = s;
      return next == fsm::kRace;
    }
    old = seen;  // another thread won: recompute against its record
  }
}

}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace hirace

#endif  // HIRACE_UPDATE_H
