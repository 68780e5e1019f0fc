// cltc coverage's barrier counting outside a kernel's Seen: on the GPU per-block counters in shared
// memory (block_start, arrive, block_exit, the leading lane `leads`) and `sync_counted`, where
// `__syncthreads_count` itself tells who arrived; on the cpu backend counters in memory the host
// provides, and `passed`, each barrier instance judged from the emulator's `last_barrier`;
// CLTC_COV_SYNC, the planner's form of a plain `__syncthreads()`, and BlockScope, placed at the top
// of every kernel that reaches a barrier.
#ifndef CLTC_COVERAGE_BARRIERS_H
#define CLTC_COVERAGE_BARRIERS_H

#include "coverage_record.h"

namespace cltc {
namespace cov {

CLTC_COV_UNIT_BEGIN

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

CLTC_COV_UNIT_END

}  // namespace cov
}  // namespace cltc

#endif  // CLTC_COVERAGE_BARRIERS_H
