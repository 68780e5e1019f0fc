// A kernel's own coverage items noted in registers: `Seen` (the kernel's mask of bits, written into
// its SM's row of g_bits when threads leave, with the fewest arrivals of its first
// CLTC_COV_LATE_BARRIERS barriers judged then), and the kernel-body forms the planner writes against
// it: br_in, sw_in, LoopIn and sync_counted_in (CLTC_COV_SYNC_IN).
#ifndef CLTC_COVERAGE_SEEN_H
#define CLTC_COVERAGE_SEEN_H

#include "coverage_barriers.h"

namespace cltc {
namespace cov {

CLTC_COV_UNIT_BEGIN

// A kernel's own items (those in its body, not in the device functions it calls) are noted in
// registers: the planner gives each of them a bit of the kernel's `Seen` (declared first in the
// body: `::cltc::cov::Seen<ID0, ID1, ...> cltc_seen_;`, bit i standing for flag IDi, or for barrier
// flag IDi & ~kBarrierFlag), and the flags are written when threads leave the kernel, once for the
// lanes of a warp that leave together: no flag traffic inside the kernel. (A kernel with inline
// assembly keeps the direct forms: an `exit` there would skip the destructor; a thread that traps
// writes nothing, and its launch fails.) What a leaving warp writes is one atomic OR per word of
// bits into its SM's row of g_bits, nothing read first, and its barriers' counts are judged when it
// leaves, not at each barrier. Measured on an H100 (bench/coverage_overhead, side by side; kernels of
// 0.04 ms and 32K blocks feel every instruction of a warp's tail): a flag load per item and per
// barrier cost reduce 175% and matmul 41%; bits in registers flushed by reading the flags first,
// 133% and 1.5%; flushed by atomic OR, 88%; that with one word and one warp reduction where the
// kernel's items fit, the barriers' counts judged at exit through a call, and the leading lane told
// by %lanemask_lt, 56% and 0.3% (stencil 50% -> 13%; bench/results/coverage_overhead_h100_red).
// Tried and not kept: a flush that tested each flag behind its own branch (reduce 198%), flags
// prefetched at entry, replicated per SM, or kept with an L1 evict-last hint, one flush per block
// through shared memory; barriers told from the threads' exits noted in shared memory instead
// of `__syncthreads_count` (reduce 299%, matmul 37%: a shared read after every barrier); the exit's
// record path inlined (+20 points) or called with the Seen by reference (+65: a stack frame).
#if defined(__CUDACC__) && !defined(CUDAEMU)
#define CLTC_COV_INLINE __forceinline__
#else
#define CLTC_COV_INLINE inline
#endif
constexpr unsigned kBarrierFlag = ::cctk::kSeenBarrierFlag;
constexpr unsigned kSeenBits = ::cctk::kSeenBits;

// Where a Seen item's flag sits in a row of g_bits, and whether item i is the first of its word.
CLTC_COV_INLINE CCTK_HD constexpr unsigned bit_of(unsigned id) {
  return id & kBarrierFlag ? kBarrierBit0 + (id & ~kBarrierFlag) : id;
}
template <unsigned N> CLTC_COV_INLINE CCTK_HD constexpr bool first_of_word(const unsigned (&ids)[N], unsigned i) {
  for (unsigned j = 0; j < i; ++j)
    if (bit_of(ids[j]) / 64 == bit_of(ids[i]) / 64) return false;
  return true;
}

// Barrier b's flags in a Seen: 2b | kBarrierFlag (reached) then 2b + 1 | kBarrierFlag (by a whole block).
CLTC_COV_INLINE CCTK_HD constexpr bool opens_barrier(unsigned id) { return (id & kBarrierFlag) && !(id & 1); }
constexpr unsigned kLateBarriers = CLTC_COV_LATE_BARRIERS;

template <unsigned... Ids> struct Seen {
  static_assert(sizeof...(Ids) <= kSeenBits, "a kernel notes at most kSeenBits items in registers");
  // The kernel-body barriers, in the order of their bits: slot k is the k-th. For the first
  // kLateBarriers of them a thread keeps in a register the fewest arrivals of the instances it passed;
  // fewer than the block's threads is an instance some of them had left before, recorded (with that
  // count) when the thread leaves. Later barriers record such an instance at once.
  static CLTC_COV_INLINE CCTK_HD constexpr unsigned barrier_slot(unsigned bit) {
    constexpr unsigned ids[] = {Ids..., 0u};
    unsigned k = 0;
    for (unsigned j = 0; j < bit && j < sizeof...(Ids); ++j) k += opens_barrier(ids[j]);
    return k;
  }
  static CLTC_COV_INLINE CCTK_HD constexpr unsigned barrier_of_slot(unsigned k) {
    constexpr unsigned ids[] = {Ids..., 0u};
    for (unsigned j = 0; j < sizeof...(Ids); ++j)
      if (opens_barrier(ids[j]) && k-- == 0) return (ids[j] & ~kBarrierFlag) / 2;
    return 0;
  }
  static constexpr unsigned kLate =
      barrier_slot(sizeof...(Ids)) < kLateBarriers ? barrier_slot(sizeof...(Ids)) : kLateBarriers;

  unsigned long long bits = 0;
  unsigned fewest[kLate ? kLate : 1];   // the fewest arrivals of an instance this thread passed

  CLTC_COV_INLINE CCTK_HD Seen() {
#pragma unroll
    for (unsigned k = 0; k < (kLate ? kLate : 1); ++k) fewest[k] = ~0u;
  }

  CLTC_COV_INLINE CCTK_HD void note(unsigned bit) { bits |= 1ull << bit; }

#if defined(__CUDA_ARCH__)
  // The lanes leaving together that passed a short instance: one record per barrier, by the first lane
  // that passed one of it. A call with the values, so that this rare path costs the kernel nothing it
  // could keep in registers (inlined, or with the Seen by reference, it cost reduce 20 and 65 points).
  static __device__ __noinline__ void record_short(unsigned tpb, unsigned f0, unsigned f1, unsigned f2,
                                                   unsigned f3, unsigned f4, unsigned f5, unsigned f6,
                                                   unsigned f7) {
    static_assert(kLateBarriers <= 8, "record_short takes eight barriers' arrivals");
    const unsigned f[8] = {f0, f1, f2, f3, f4, f5, f6, f7};
    unsigned act = __activemask();
#pragma unroll
    for (unsigned k = 0; k < kLate; ++k) {
      unsigned who = __ballot_sync(act, f[k] < tpb);
      if (f[k] < tpb && leads(who)) classify(barrier_of_slot(k), f[k], tpb);
    }
  }
  CLTC_COV_INLINE __device__ unsigned late(unsigned k) const { return k < kLate ? fewest[k] : ~0u; }
#endif

  CLTC_COV_INLINE CCTK_HD ~Seen() {
    constexpr unsigned ids[] = {Ids..., 0u};
    constexpr unsigned n = sizeof...(Ids);
    unsigned long long m = bits;
#if defined(__CUDA_ARCH__)
    unsigned act = __activemask();
    if constexpr (kLate > 0) {
      unsigned tpb = block_threads();
      bool any = false;
#pragma unroll
      for (unsigned k = 0; k < kLate; ++k) any |= fewest[k] < tpb;
      if (any) record_short(tpb, late(0), late(1), late(2), late(3), late(4), late(5), late(6), late(7));
    }
#if __CUDA_ARCH__ >= 800
    // the lanes leaving together: one of them writes what any of them noted
    unsigned long long any_lane = __reduce_or_sync(act, unsigned(m));
    if constexpr (n > 32) any_lane |= (unsigned long long)__reduce_or_sync(act, unsigned(m >> 32)) << 32;
    m = any_lane;
    if (!leads(act)) return;
#endif
    // each word of bits the kernel's items fall in, ORed into this SM's row: no load, nothing to wait for
    unsigned sm;
    asm("mov.u32 %0, %%smid;" : "=r"(sm));
    unsigned long long *row = g_bits + (sm % kBitSlots) * kBitRow;
#pragma unroll
    for (unsigned i = 0; i < n; ++i) {
      if (first_of_word(ids, i)) {
        unsigned long long w = 0;
#pragma unroll
        for (unsigned j = i; j < n; ++j)
          if (bit_of(ids[j]) / 64 == bit_of(ids[i]) / 64) w |= ((m >> j) & 1) << (bit_of(ids[j]) % 64);
        if (w) asm volatile("red.relaxed.gpu.global.or.b64 [%0], %1;" ::"l"(row + bit_of(ids[i]) / 64), "l"(w));
      }
    }
#else
    for (unsigned i = 0; i < n; ++i)
      if ((m >> i) & 1) {
        if (ids[i] & kBarrierFlag) g_barrier_flags[ids[i] & ~kBarrierFlag] = 1;
        else hit(ids[i]);
      }
#endif
  }
};

// The kernel-body forms of br, sw and Loop: bits of the kernel's Seen instead of flag ids.
template <class S> CLTC_COV_INLINE CCTK_HD bool br_in(S &seen, bool c, unsigned if_true, unsigned if_false) {
  seen.note(c ? if_true : if_false);
  return c;
}
template <class S, class T> CLTC_COV_INLINE CCTK_HD T sw_in(S &seen, unsigned bit, T v) {
  seen.note(bit);
  return v;
}
template <class S> struct LoopIn {
  S &seen;
  unsigned base, n;
  CLTC_COV_INLINE CCTK_HD LoopIn(S &s, unsigned b) : seen(s), base(b), n(0) {}
  CLTC_COV_INLINE CCTK_HD void iter() {
    if (n < 2) ++n;
  }
  CLTC_COV_INLINE CCTK_HD bool test(bool c) {
    if (!c) seen.note(base + ::cctk::kLoopBoundary);
    return c;
  }
  CLTC_COV_INLINE CCTK_HD ~LoopIn() { seen.note(base + n); }
};

// `__syncthreads()` in a kernel's body: as sync_counted, with its two barrier flags as bits `bit`
// and `bit + 1` of the kernel's Seen.
#if defined(__CUDACC__) && !defined(CUDAEMU)
template <unsigned B, unsigned Bit, class S> CLTC_COV_INLINE __device__ void sync_counted_in(S &seen) {
  if (kCounts) {
    sync_counted(B);
    return;
  }
  unsigned tpb = block_threads();
  unsigned n = __syncthreads_count(1);
  // nothing here branches on the count, so the thread goes on while the barrier's result arrives
  seen.bits |= 1ull << Bit | (unsigned long long)(n == tpb) << (Bit + 1);
  constexpr unsigned k = S::barrier_slot(Bit);
  if constexpr (k < S::kLate) {
    seen.fewest[k] = min(seen.fewest[k], n);
  } else if (n != tpb) {
    classify_divergent(B, n, tpb);
  }
}
#define CLTC_COV_SYNC_IN(seen, b, bit, call) ::cltc::cov::sync_counted_in<b, bit>(seen)
#else
#define CLTC_COV_SYNC_IN(seen, b, bit, call) CLTC_COV_SYNC(b, call)
#endif

CLTC_COV_UNIT_END

}  // namespace cov
}  // namespace cltc

#endif  // CLTC_COVERAGE_SEEN_H
