// Algorithm 1: the lock-free shadow update at one access.
#ifndef HIRACE_UPDATE_H
#define HIRACE_UPDATE_H

#include "config.h"
#include "fsm_table.h"

namespace hirace {

// What the runtime knows about the accessing thread.
struct ThreadCtx {
  unsigned tid;        // thread index within its block
  unsigned bid;        // linear block index
  unsigned bclk;       // __syncthreads passed so far
  unsigned wclk;       // __syncwarp passed so far
  unsigned warp_size;  // 32 on hardware; the model checker uses smaller warps
  // Launch epochs: `bid` counts on from the blocks of earlier launches (the host advances `base`
  // by each launch's grid), so a record whose block is below `base` is an earlier launch's, which
  // the launch boundary orders before everything now: it reads as INIT, without a reset.
  unsigned base = 0;
  // Lane groups (hirace/fsm.py): the thread's warp-level syncs so far took groups of
  // warp_size >> narrow aligned lanes, or wider (0: the whole warp). See lane_narrowing.
  unsigned narrow = 0;
  unsigned full = 0;   // wclk after the thread's last sync of the whole warp (every lane's then)
};

// A thread's warp clock word (its second clock, clocks.h): the warp clock (bits 0-8, stopped at
// 2^kWclkBits: wrapped), the warp clock after its last sync of the whole warp (bits 9-17), its
// lane-group narrowing (bits 18-20), and the narrowing of a `__syncwarp(mask)` it is entering
// (bits 21-23, 7: none).
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
CCTK_HD inline bool one_group(unsigned a, unsigned b, unsigned n, unsigned warp_size) {
  unsigned width = warp_size >> n;
  if (width == 0) width = 1;
  return (a % warp_size) / width == (b % warp_size) / width;
}
CCTK_HD inline void inputs(ShadowWord s, const ThreadCtx &c, unsigned state, unsigned *rel, unsigned *syn) {
  if (s.bid() != (c.bid & ((1ull << ShadowWord::kBidBits) - 1))) {
    *rel = fsm::kOtherBlock;
    *syn = fsm::kUnsynced;
    return;
  }
  bool block = ((c.bclk - s.bclk()) & ((1u << ShadowWord::kBclkBits) - 1)) != 0 || (c.bclk >> ShadowWord::kBclkBits);
  bool wrapped = (c.wclk >> ShadowWord::kWclkBits) != 0;
  bool synced = s.wclk() < c.wclk || wrapped;   // a warp-level sync of X's since L's access
  bool after_full = s.wclk() < c.full || wrapped;   // a sync of the whole warp since L's access
  const unsigned b = block ? unsigned(fsm::kBlockSynced) : unsigned(fsm::kUnsynced);
  const unsigned w = block ? unsigned(fsm::kBlockSynced) : unsigned(fsm::kWarpSynced);
  *rel = fsm::kSameBlock;
  *syn = b;
  // X's group finer than L's, L's warp level of several lanes (some maybe outside X's group)
  if (c.narrow > s.lanes() && ((fsm::kWarpMultiStates >> state) & 1u)) {
    if (after_full) {
      *rel = fsm::kSameWarp;
      *syn = w;
    }
    return;
  }
  if (s.tid() == c.tid) {
    *rel = fsm::kSameThread;
    *syn = synced ? w : b;
    return;
  }
  if (s.tid() / c.warp_size != c.tid / c.warp_size) return;
  if (one_group(s.tid(), c.tid, s.lanes() > c.narrow ? s.lanes() : c.narrow, c.warp_size)) {   // of the finer
    *rel = fsm::kSameWarp;
    *syn = synced ? w : b;
  } else if ((synced && one_group(s.tid(), c.tid, c.narrow, c.warp_size)) || after_full) {   // X's sync took L
    *rel = fsm::kSameWarp;
    *syn = w;
  }
}

CCTK_HD inline unsigned long long cas(unsigned long long *p, unsigned long long expected,
                                        unsigned long long desired) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(p, expected, desired);
#else
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
#endif
}

// Returns true when this access completes a race (the word enters RACE now);
// *prior receives the record it replaced.
CCTK_HD inline bool update(unsigned long long *shadow, const ThreadCtx &c, fsm::Access a,
                             ShadowWord *prior = nullptr) {
  unsigned long long old = *reinterpret_cast<volatile unsigned long long *>(shadow);
  for (;;) {
    ShadowWord s(old);
    unsigned st = s.bid() < c.base ? unsigned(fsm::kInit) : s.state();
    if (st == fsm::kRace) return false;  // reported once already
    unsigned rel = fsm::kSameThread, syn = fsm::kUnsynced;
    if (st != fsm::kInit) inputs(s, c, st, &rel, &syn);
    unsigned next = fsm::lookup(fsm::index(a, syn, rel, st));
    // fast paths: the access changes nothing that later transitions read
    if (next == st && ((fsm::kAccessorFreeStates >> st) & 1u)) return false;
    if (next == st && ((fsm::kBlockOnlyStates >> st) & 1u) && rel != fsm::kOtherBlock &&
        syn != fsm::kBlockSynced)
      return false;
    // a lane of the recorded accessor's warp, with its clocks: the record would change only in the
    // lane, which no later transition reads (a warp's broadcast read of one word took a round of
    // contended CAS per lane: matmul's tile rows)
    if (next == st && ((fsm::kLaneFreeStates >> st) & 1u) && rel <= fsm::kSameWarp && syn == fsm::kUnsynced &&
        s.lanes() == c.narrow)
      return false;
    ShadowWord n = ShadowWord::make(next, c.tid, c.bid, c.narrow, c.bclk, c.wclk);
    if (n.bits == old) return false;  // fast path: the record would not change
    unsigned long long seen = cas(shadow, old, n.bits);
    if (seen == old) {
      if (prior) *prior = s;
      return next == fsm::kRace;
    }
    old = seen;  // another thread won: recompute against its record
  }
}

}  // namespace hirace

#endif  // HIRACE_UPDATE_H
