// cltc coverage runtime: the flags and counters instrumented kernels set, and the
// host code that collects them into $CLTC_COV_LOG when the program ends.
// Same code for nvcc and for the cpu backend (cudaemu).
//
// Flag ids are planned by cltestcheck/coverage/planner.py (branch arms, loop
// cases); barrier b owns barrier flags 2b ("reached") and 2b+1 ("every thread
// of some block arrived"). A flag is one byte, set once (read before writing,
// so a hot branch costs a cached load). Built with CLTC_COV_COUNTS=1, an item
// counts every thread that passes it instead (one atomic add: hit counts of
// executions for lcov/Cobertura, at a price the flags do not pay).
#ifndef CLTC_COVERAGE_H
#define CLTC_COVERAGE_H

#include "cudacommon/host_runtime.h"

#include <cstdio>

#include "cltc/linkage.h"
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cudacommon/qualifiers.h"

#ifndef CLTC_COV_FLAGS
#define CLTC_COV_FLAGS 1
#endif
#ifndef CLTC_COV_BARRIERS
#define CLTC_COV_BARRIERS 0
#endif
#ifndef CLTC_COV_COUNTS
#define CLTC_COV_COUNTS 0
#endif

namespace cltc {
namespace cov {

constexpr unsigned kFlags = CLTC_COV_FLAGS;
constexpr unsigned kBarriers = CLTC_COV_BARRIERS;
constexpr unsigned kBarrierFlags = kBarriers ? 2 * kBarriers : 1;
constexpr unsigned kDivergenceCap = 256;
constexpr bool kCounts = CLTC_COV_COUNTS != 0;
constexpr unsigned kCountSlots = kCounts ? kFlags : 1;
constexpr unsigned kBarrierCountSlots = kCounts && kBarriers ? kBarriers : 1;

// A barrier that only part of a block reached: found by the block's last thread.
struct Divergence {
  unsigned barrier, bx, by, bz, arrived, threads;
};

// Where the per-launch barrier bookkeeping lives (set by the host when it grows).
struct BarrierState {
  unsigned *arrivals;  // [linear block][barrier]
  unsigned *exits;     // [linear block]: threads of the block that have finished
};

alignas(16) CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned char g_flags[(kFlags + 15) & ~15u];
alignas(16) CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned char g_barrier_flags[(kBarrierFlags + 15) & ~15u];
// The flags of the items kernels note in registers (Seen), as bits: flag i is bit i, barrier flag i
// bit sizeof(g_flags) + i, in one row of words per SM (a kernel's few items mostly share a word); the
// lanes of a warp leaving together OR their bits into their SM's row, an atomic whose result nobody
// waits for, and the host ORs the rows into the flags. Rows of their own: 64 rows shared by two or
// three SMs each cost stencil 5 points more on an H100, 8 rows cost reduce and stencil 120 and 230.
// (The layout follows from the three arrays' sizes alone: cltestcheck/gpu_host.py reads it so.)
constexpr unsigned kBarrierBit0 = sizeof(g_flags);
constexpr unsigned kBitRow = (kBarrierBit0 + sizeof(g_barrier_flags) + 1023) / 1024 * 16;   // whole 128-byte lines
#ifndef CLTC_COV_BIT_SLOTS
#define CLTC_COV_BIT_SLOTS 256
#endif
constexpr unsigned kBitSlots = CLTC_COV_BIT_SLOTS;
alignas(128) CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned long long g_bits[kBitSlots * kBitRow];
CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned long long g_counts[kCountSlots];
CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned long long g_barrier_counts[kBarrierCountSlots];   // arrivals
CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL BarrierState g_barriers;
CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL Divergence g_divergence[kDivergenceCap];
CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned g_divergence_count;

// Set a flag once. On the GPU the load and store are opaque to the compiler
// (asm without a memory clobber): a C++ byte store could alias the kernel's own
// data and cost it its register-held and read-only-cached values (measured:
// spmv 5% -> 80% overhead), and a volatile load misses L1 on every evaluation
// (measured: reduce 26x). A stale read only costs a second store of 1.
CCTK_D inline void set_once(unsigned char *flags, unsigned id) {
#if defined(__CUDA_ARCH__)
  unsigned char *p = flags + id;
  unsigned short v;
  asm volatile("ld.u8 %0, [%1];" : "=h"(v) : "l"(p));
  if (!v) asm volatile("st.u8 [%0], %1;" ::"l"(p), "h"((unsigned short)1));
#else
  if (!flags[id]) flags[id] = 1;
#endif
}

// n more threads passed an item (counting builds). The cpu backend runs a launch's threads on one
// OS thread, so a plain add is exact there.
CCTK_D inline void count_in(unsigned long long *counts, unsigned id, unsigned n = 1) {
#if defined(__CUDA_ARCH__)
  atomicAdd(&counts[id], (unsigned long long)n);
#else
  counts[id] += n;
#endif
}
CCTK_D inline void count(unsigned id) { count_in(g_counts, id); }

CCTK_D inline void record(unsigned id) {
  if (kCounts) count(id);
  else set_once(g_flags, id);
}

// Coverage is of kernel execution: a __host__ __device__ function running on the host records
// nothing, on the GPU backend (no device flags there) and on the cpu backend (outside a launch) alike.
CCTK_HD inline void hit(unsigned id) {
#if defined(__CUDA_ARCH__)
  record(id);
#elif !defined(__CUDACC__) || defined(CUDAEMU)
#if defined(CUDAEMU)
  if (!::cudaemu::in_kernel()) return;
#endif
  record(id);
#else
  (void)id;
#endif
}

// `if (c)` -> `if (br(!!(c), then_flag, else_flag))`; also ?: and &&/|| operands.
// (A per-function register mask of flags already set was tried: passing it by
// reference put it in local memory and doubled the overhead on an H100.)
CCTK_HD inline bool br(bool c, unsigned if_true, unsigned if_false) {
  hit(c ? if_true : if_false);
  return c;
}

// `switch (x)` -> `switch (auto v = (x); sw(v == (c1) ? f1 : ... : fout, v))`.
template <class T> CCTK_HD inline T sw(unsigned flag, T v) {
  hit(flag);
  return v;
}

// One entry of one thread into a loop: counts iterations up to "more than one",
// and notes when the loop condition turned false (the loop boundary).
struct Loop {
  unsigned base, n;
  CCTK_HD explicit Loop(unsigned b) : base(b), n(0) {}
  CCTK_HD void iter() {
    if (n < 2) ++n;
  }
  CCTK_HD bool test(bool c) {
    if (!c) hit(base + ::cctk::kLoopBoundary);
    return c;
  }
  CCTK_HD ~Loop() { hit(base + n); }   // n: kLoopZero, kLoopOne or kLoopMany
};

CCTK_D inline unsigned linear_block() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

CCTK_D inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

// The block's last thread to finish sorts each barrier it counted into reached
// by every thread / reached by part of the block (a divergence record).
CCTK_D inline void classify(unsigned b, unsigned n, unsigned tpb) {
  if (n == 0) return;
  set_once(g_barrier_flags, 2 * b);
  if (n % tpb == 0) {
    set_once(g_barrier_flags, 2 * b + 1);
  } else {
    unsigned k = atomicAdd(&g_divergence_count, 1u);
    if (k < kDivergenceCap) g_divergence[k] = Divergence{b, blockIdx.x, blockIdx.y, blockIdx.z, n, tpb};
  }
}

#if defined(__CUDACC__) && !defined(CUDAEMU)
// True in one lane of `mask` (the lanes converged here), which then acts for all of them.
__device__ inline bool leads(unsigned mask) {
  unsigned below;   // the lanes below this one (a special register: no thread index arithmetic)
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
  return (mask & below) == 0;
}

// A barrier that not every thread of the block reached (`n` arrived): one lane of each converged
// group records it.
__device__ inline void classify_divergent(unsigned b, unsigned n, unsigned tpb) {
  if (leads(__activemask())) classify(b, n, tpb);
}

// GPU: per-block counters in shared memory ([0, kBarriers): arrivals, [kBarriers]:
// threads finished), zeroed when the block starts; no global traffic per arrival.
__device__ inline unsigned *block_counters() {
  __shared__ unsigned c[kBarriers + 1];
  return c;
}

__device__ inline void block_start() {
  unsigned *c = block_counters();
  unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  for (unsigned i = tid; i <= kBarriers; i += block_threads()) c[i] = 0;
  __syncthreads();
}

// `__syncthreads()` -> `(arrive(b), __syncthreads())`: one shared atomic per converged group.
__device__ inline void arrive(unsigned b) {
  unsigned mask = __activemask();
  if (leads(mask)) {
    atomicAdd(&block_counters()[b], unsigned(__popc(mask)));
    if (kCounts) count_in(g_barrier_counts, b, __popc(mask));
  }
}

__device__ inline void block_exit() {
  unsigned *c = block_counters();
  unsigned tpb = block_threads();
  __threadfence_block();
  // one shared atomic per converged group; its leader learns whether the block is done
  unsigned mask = __activemask();
  if (!leads(mask)) return;
  unsigned count = __popc(mask);
  if (atomicAdd(&c[kBarriers], count) + count != tpb) return;
  __threadfence_block();
  for (unsigned b = 0; b < kBarriers; ++b) classify(b, atomicAdd(&c[b], 0u), tpb);
}
#else
// cpu backend: counters per launch in memory the host provides ([block][barrier]).
inline void block_start() {}

inline void arrive(unsigned b) {
  if (kCounts) count_in(g_barrier_counts, b);
  unsigned *a = g_barriers.arrivals;
  if (a) atomicAdd(&a[linear_block() * kBarriers + b], 1u);
}

inline void block_exit() {
  BarrierState s = g_barriers;
  if (!s.arrivals || kBarriers == 0) return;
  unsigned blk = linear_block(), tpb = block_threads();
  if (atomicAdd(&s.exits[blk], 1u) + 1 != tpb) return;
  unsigned *row = &s.arrivals[blk * kBarriers];
  for (unsigned b = 0; b < kBarriers; ++b) classify(b, atomicExch(&row[b], 0u), tpb);
  s.exits[blk] = 0;
}
#endif

#if defined(__CUDACC__) && !defined(CUDAEMU)
// GPU, plain `__syncthreads()`: the barrier itself counts who arrived (exited
// threads do not), so nothing is kept per block. Divergent blocks are recorded
// by each arriving warp's leader; the host folds records per (barrier, block).
__device__ inline void sync_counted(unsigned b) {
  if (kCounts) {   // each converged group's leader adds its threads' arrivals
    unsigned m = __activemask();
    if (leads(m)) count_in(g_barrier_counts, b, __popc(m));
  }
  unsigned n = __syncthreads_count(1);
  unsigned tpb = block_threads();
  if (n == tpb) {
    set_once(g_barrier_flags, 2 * b);
    set_once(g_barrier_flags, 2 * b + 1);
    return;
  }
  classify_divergent(b, n, tpb);
}
#define CLTC_COV_SYNC(b, call) ::cltc::cov::sync_counted(b)
#else
// cpu backend, plain `__syncthreads()`: the program's own barrier (the emulator names its line in a
// deadlock or divergence report), then how many threads it released, judged per instance as on the
// GPU; a short instance is recorded once, by the first of its threads to go on.
inline void passed(unsigned b) {
  if (kCounts) count_in(g_barrier_counts, b);
  ::cudaemu::BarrierPassed p = ::cudaemu::last_barrier();
  unsigned tpb = block_threads();
  set_once(g_barrier_flags, 2 * b);
  if (p.arrived == tpb) {
    set_once(g_barrier_flags, 2 * b + 1);
    return;
  }
  struct Instance {
    unsigned long long launch;
    unsigned block, gen;
  };
  static Instance last{~0ull, 0, 0};   // the launch's blocks run one at a time on one OS thread
  Instance now{p.launch, linear_block(), p.gen};
  if (now.launch == last.launch && now.block == last.block && now.gen == last.gen) return;
  last = now;
  classify(b, p.arrived, tpb);
}
#define CLTC_COV_SYNC(b, call) (call, ::cltc::cov::passed(b))
#endif

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
#ifndef CLTC_COV_LATE_BARRIERS
#define CLTC_COV_LATE_BARRIERS 8
#endif
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

// Placed at the top of every kernel that reaches a barrier; its destructor runs
// whichever way the thread leaves the kernel. On the GPU only the variants
// (__syncthreads_count/_and/_or) need it (Variants = true).
template <bool Variants> struct BlockScope {
  CCTK_D BlockScope() {
#if defined(__CUDACC__) && !defined(CUDAEMU)
    if (!Variants) return;
#endif
    block_start();
  }
  CCTK_D ~BlockScope() {
#if defined(__CUDACC__) && !defined(CUDAEMU)
    if (!Variants) return;
#endif
    block_exit();
  }
};

namespace host {

struct Tu {
  bool (*pull)(std::vector<unsigned char> &, std::vector<unsigned long long> &, std::vector<unsigned char> &,
               std::vector<unsigned long long> &, std::vector<Divergence> &, unsigned &);
  void (*set_barriers)(const BarrierState &);
};

struct State {
  bool init = false;
  std::string log_path;
  std::vector<Tu> tus;
  std::vector<unsigned char> flags = std::vector<unsigned char>(kFlags, 0);
  std::vector<unsigned long long> counts = std::vector<unsigned long long>(kFlags, 0);
  std::vector<unsigned char> barrier_flags = std::vector<unsigned char>(kBarrierFlags, 0);
  std::vector<unsigned long long> barrier_counts = std::vector<unsigned long long>(kBarrierCountSlots, 0);
  std::vector<Divergence> divergences;
  unsigned divergence_total = 0;
  unsigned launches = 0;
  BarrierState barriers{nullptr, nullptr};
  size_t blocks_cap = 0;
};

inline State &state() {
  static State s;
  return s;
}

inline void fail(cudaError_t e, const char *what) { ::cctk::host::fail("cltc coverage", what, e); }

// Device -> host: OR each translation unit's flags into the totals (and add its counts); false when
// some could not be read (a kernel's fault, say: the message names the CUDA error).
inline bool pull() {
  State &s = state();
  bool ok = true;
  for (const Tu &tu : s.tus)
    ok &= tu.pull(s.flags, s.counts, s.barrier_flags, s.barrier_counts, s.divergences, s.divergence_total);
  return ok;
}

inline void write_log() {
  State &s = state();
  ::cctk::host::LogFile log(s.log_path);
  if (!log) return;
  std::FILE *f = log.get();
  namespace rec = ::cctk::coverage_log;   // record writers generated from instrument/protocol.py
  for (unsigned i = 0; i < kFlags; ++i)
    if (s.flags[i]) rec::write_flag(f, i);
  for (unsigned i = 0; kCounts && i < kFlags; ++i)
    if (s.counts[i]) rec::write_count(f, i, s.counts[i]);
  for (unsigned i = 0; i < 2 * kBarriers; ++i)
    if (s.barrier_flags[i]) rec::write_barrier_flag(f, i);
  for (unsigned b = 0; kCounts && b < kBarriers; ++b)
    if (s.barrier_counts[b]) rec::write_barrier_count(f, b, s.barrier_counts[b]);
  for (const Divergence &d : s.divergences) {
    const unsigned block[3] = {d.bx, d.by, d.bz};
    rec::write_divergence(f, d.barrier, block, d.arrived, d.threads);
  }
  rec::write_end(f, s.launches, s.divergence_total);
}

inline void finish() {
  State &s = state();
  if (!s.init) return;
  if (pull()) write_log();   // flags that could not be read are no log, not a log of nothing covered
  s.init = false;
}

inline void init() {
  State &s = state();
  if (s.init) return;
  s.init = true;
  if (const char *p = ::cctk::host::option(::cctk::env::kCltcCovLog)) s.log_path = p;
  static bool registered = false;   // a cudaDeviceReset starts another init: one hook is enough
  if (!registered) {
    registered = true;
    ::cctk::host::at_end_reading_device(finish);
  }
}

// Before every launch: make room for the launch's per-block barrier counters.
inline void before_launch(dim3 grid, dim3 block) {
  (void)block;
  init();
  State &s = state();
  ++s.launches;
#if !defined(__CUDACC__) || defined(CUDAEMU)  // the GPU counts barrier arrivals in shared memory
  if (kBarriers == 0) return;
  size_t blocks = size_t(grid.x) * grid.y * grid.z;
  if (blocks <= s.blocks_cap) return;
  size_t cap = blocks > 2 * s.blocks_cap ? blocks : 2 * s.blocks_cap;
  cudaError_t e;
  if (s.barriers.arrivals) {
    cudaDeviceSynchronize();  // earlier launches may still count into the old arrays
    cudaFree(s.barriers.arrivals);
    cudaFree(s.barriers.exits);
  }
  if ((e = cudaMalloc(reinterpret_cast<void **>(&s.barriers.arrivals), cap * kBarriers * sizeof(unsigned))))
    fail(e, "barrier counter allocation");
  if ((e = cudaMalloc(reinterpret_cast<void **>(&s.barriers.exits), cap * sizeof(unsigned))))
    fail(e, "barrier counter allocation");
  cudaMemset(s.barriers.arrivals, 0, cap * kBarriers * sizeof(unsigned));
  cudaMemset(s.barriers.exits, 0, cap * sizeof(unsigned));
  s.blocks_cap = cap;
  for (const Tu &tu : s.tus) tu.set_barriers(s.barriers);
#else
  (void)grid;
#endif
}

// `cudaDeviceReset()` -> `(before_reset(), cudaDeviceReset())`: collect first,
// since the reset frees every device allocation.
inline void before_reset() {
  State &s = state();
  if (!s.init) return;
  pull();
  s.barriers = BarrierState{nullptr, nullptr};
  s.blocks_cap = 0;
}

struct TuRegistrar {
  explicit TuRegistrar(Tu tu) { state().tus.push_back(tu); }
};

}  // namespace host

namespace {
inline bool cltc_pull_this_tu(std::vector<unsigned char> &flags, std::vector<unsigned long long> &counts,
                              std::vector<unsigned char> &bflags, std::vector<unsigned long long> &bcounts,
                              std::vector<Divergence> &divs, unsigned &total) {
  std::vector<unsigned char> mine(kFlags), bmine(kBarrierFlags);
  std::vector<unsigned long long> cmine(kCountSlots), bcmine(kBarrierCountSlots);
  cudaError_t e = cudaMemcpyFromSymbol(mine.data(), g_flags, kFlags);
  if (e == cudaSuccess) e = cudaMemcpyFromSymbol(bmine.data(), g_barrier_flags, kBarrierFlags);
  if (e == cudaSuccess && kCounts) e = cudaMemcpyFromSymbol(cmine.data(), g_counts, sizeof(unsigned long long) * kCountSlots);
  if (e == cudaSuccess && kCounts)
    e = cudaMemcpyFromSymbol(bcmine.data(), g_barrier_counts, sizeof(unsigned long long) * kBarrierCountSlots);
  std::vector<unsigned long long> bits(kBitSlots * kBitRow);
  if (e == cudaSuccess) e = cudaMemcpyFromSymbol(bits.data(), g_bits, sizeof(unsigned long long) * bits.size());
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cltc coverage: reading the coverage flags failed: %s\n", cudaGetErrorString(e));
    return false;
  }
  for (unsigned slot = 1; slot < kBitSlots; ++slot)
    for (unsigned w = 0; w < kBitRow; ++w) bits[w] |= bits[slot * kBitRow + w];
  auto bit = [&](unsigned i) { return unsigned(bits[i / 64] >> (i % 64) & 1); };
  for (unsigned i = 0; i < kFlags; ++i) mine[i] |= bit(i);
  for (unsigned i = 0; i < kBarrierFlags; ++i) bmine[i] |= bit(kBarrierBit0 + i);
  for (unsigned i = 0; i < kFlags; ++i) flags[i] |= mine[i];
  for (unsigned i = 0; kCounts && i < kFlags; ++i) {
    counts[i] += cmine[i];
    flags[i] |= cmine[i] != 0;
  }
  for (unsigned b = 0; kCounts && b < kBarriers; ++b) bcounts[b] += bcmine[b];
  for (unsigned i = 0; i < kBarrierFlags; ++i) bflags[i] |= bmine[i];
  unsigned n = 0;
  cudaMemcpyFromSymbol(&n, g_divergence_count, sizeof n);
  std::vector<Divergence> d(n < kDivergenceCap ? n : kDivergenceCap);
  if (!d.empty()) cudaMemcpyFromSymbol(d.data(), g_divergence, d.size() * sizeof(Divergence));
  divs.insert(divs.end(), d.begin(), d.end());
  total += n;
  unsigned zero = 0;
  cudaMemcpyToSymbol(g_divergence_count, &zero, sizeof zero);
  return true;
}
inline void cltc_set_barriers_this_tu(const BarrierState &b) {
  cudaError_t e = cudaMemcpyToSymbol(g_barriers, &b, sizeof b);
  if (e != cudaSuccess) host::fail(e, "barrier counter setup");
}
static host::TuRegistrar cltc_tu_registrar(host::Tu{&cltc_pull_this_tu, &cltc_set_barriers_this_tu});
}  // namespace

}  // namespace cov
}  // namespace cltc

#endif  // CLTC_COVERAGE_H
