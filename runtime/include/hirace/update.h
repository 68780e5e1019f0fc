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
};

CCTK_HD inline unsigned relation(ShadowWord s, const ThreadCtx &c) {
  if (s.bid() != (c.bid & ((1ull << ShadowWord::kBidBits) - 1))) return fsm::kOtherBlock;
  if (s.tid() == c.tid) return fsm::kSameThread;
  return s.tid() / c.warp_size == c.tid / c.warp_size ? fsm::kSameWarp : fsm::kSameBlock;
}

// Clocks only grow, so "ahead" is "different" modulo the field width. Once a
// thread's clock has wrapped, "equal" may hide a whole lap of barriers: the
// access is then taken as synchronised (no false alarm; the host warns that
// races within one barrier interval are no longer reported for that launch).
CCTK_HD inline unsigned sync_status(ShadowWord s, const ThreadCtx &c) {
  if (((c.bclk - s.bclk()) & ((1u << ShadowWord::kBclkBits) - 1)) != 0) return fsm::kBlockSynced;
  if (c.bclk >> ShadowWord::kBclkBits) return fsm::kBlockSynced;
  if (((c.wclk - s.wclk()) & ((1u << ShadowWord::kWclkBits) - 1)) != 0) return fsm::kWarpSynced;
  if (c.wclk >> ShadowWord::kWclkBits) return fsm::kWarpSynced;
  return fsm::kUnsynced;
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
    unsigned rel = st == fsm::kInit ? unsigned(fsm::kSameThread) : relation(s, c);
    unsigned syn = st == fsm::kInit ? unsigned(fsm::kUnsynced) : sync_status(s, c);
    unsigned next = fsm::lookup(fsm::index(a, syn, rel, st));
    // fast paths: the access changes nothing that later transitions read
    if (next == st && ((fsm::kAccessorFreeStates >> st) & 1u)) return false;
    if (next == st && ((fsm::kBlockOnlyStates >> st) & 1u) && rel != fsm::kOtherBlock &&
        syn != fsm::kBlockSynced)
      return false;
    // a lane of the recorded accessor's warp, with its clocks: the record would change only in the
    // lane, which no later transition reads (a warp's broadcast read of one word took a round of
    // contended CAS per lane: matmul's tile rows)
    if (next == st && ((fsm::kLaneFreeStates >> st) & 1u) && rel <= fsm::kSameWarp && syn == fsm::kUnsynced)
      return false;
    ShadowWord n = ShadowWord::make(next, c.tid, c.bid, c.bclk, c.wclk);
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
