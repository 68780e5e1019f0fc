// cltc coverage's device-side recording: a flag set once (set_once, opaque to the compiler on the
// GPU), a counter added to (count_in, counting builds), `hit` (nothing on the host outside a launch),
// the direct forms the planner wraps items of device functions in (br, sw, Loop), a block's linear id
// and size, and `classify`, which sorts a barrier's arrivals into reached by the whole block or a
// divergence record.
#ifndef CLTC_COVERAGE_RECORD_H
#define CLTC_COVERAGE_RECORD_H

#include "coverage_state.h"

namespace cltc {
namespace cov {

CLTC_COV_UNIT_BEGIN

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

CLTC_COV_UNIT_END

}  // namespace cov
}  // namespace cltc

#endif  // CLTC_COVERAGE_RECORD_H
