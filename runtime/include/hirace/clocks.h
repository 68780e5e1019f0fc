// Barrier clocks: where a thread's two clocks live (hirace's area of the block's dynamic shared
// memory in smem mode, else global memory), the area cleared at each block's entry (block_entry),
// and the clock steps after __syncthreads, __syncwarp and cooperative-groups barriers.
#ifndef HIRACE_CLOCKS_H
#define HIRACE_CLOCKS_H

#include "bench_switches.h"
#include "launch_state.h"

namespace hirace {

// hirace's part of the block's dynamic shared memory (smem mode): two clocks per thread, then the
// shadow of the block's shared window from shared_floor on, then (smem_sites) its site slots at a
// 16-byte boundary
CCTK_D inline unsigned *shared_area() {
#if defined(__CUDA_ARCH__)
  extern __shared__ __align__(16) unsigned char hirace_dynamic_shared[];
  return reinterpret_cast<unsigned *>(hirace_dynamic_shared + g_launch.area_offset);
#else
  return nullptr;
#endif
}

// The area's 8-byte word where the shared window's site slots start (smem_sites)
CCTK_D inline unsigned long long area_sites_word() {
  return (g_launch.threads_per_block + g_launch.shared_slice_words + 1) & ~1ull;
}

CCTK_D inline unsigned *thread_clocks() {
  const LaunchState &L = g_launch;
  if (L.smem) return shared_area() + 2 * linear_tid();
  return L.clocks + 2ull * (linear_bid() * (unsigned long long)L.threads_per_block + linear_tid());
}

// The first statement of every instrumented kernel: in smem mode the block's clocks and shadow
// start at zero (dynamic shared memory holds whatever the SM's last block left there).
// `shadow_unused`: no shared word of this launch is checked whole (every shared-memory site of the
// kernel is quiet and their launch conditions hold: hirace/planner.py): only each thread's clocks
// are cleared, by the thread, without a barrier.
CCTK_D inline void block_entry(bool shadow_unused = false) {
#if defined(__CUDA_ARCH__)
#if HIRACE_BENCH_BLOCK_ENTRY_HOOK   // (benchmarks only: bench_switches.h)
  bench::never_called_check();
#endif
  const LaunchState &L = g_launch;
  if (!L.enabled || !L.smem) return;
#if HIRACE_BENCH_NO_AREA_CLEAR   // (benchmarks only: what clearing the area costs; wrong verdicts)
  return;
#endif
  unsigned long long *area = reinterpret_cast<unsigned long long *>(shared_area());
  if (shadow_unused) {
    area[linear_tid()] = 0;   // the thread's two clocks
    return;
  }
  unsigned n = blockDim.x * blockDim.y * blockDim.z;
  unsigned long long words = n + L.shared_slice_words;   // a thread's two clocks are one word
  for (unsigned long long w = linear_tid(); w < words; w += n) area[w] = 0;
  if (L.smem_sites) {   // empty slots: ~0
    unsigned long long *sites = area + area_sites_word();
    for (unsigned long long w = linear_tid(); w < 2 * L.shared_slice_words; w += n) sites[w] = ~0ull;
  }
  __syncthreads();
#endif
}

CCTK_D inline void note_wrapped() {
  *g_launch.wrapped = 1;
  *(volatile unsigned *)g_launch.noted = 1;
}
CCTK_D inline void after_block_barrier() {
  if (g_launch.enabled && ++thread_clocks()[0] == (1u << ShadowWord::kBclkBits)) note_wrapped();
}
CCTK_D inline void after_warp_barrier() {
  if (g_launch.enabled && ++thread_clocks()[1] == (1u << ShadowWord::kWclkBits)) note_wrapped();
}
// a cooperative-groups thread_group: the whole block (a barrier) or a tile (a warp barrier)
CCTK_D inline void after_group_barrier(unsigned long long group_threads) {
  if (group_threads >= 1ull * blockDim.x * blockDim.y * blockDim.z) after_block_barrier();
  else after_warp_barrier();
}
template <class T> CCTK_D inline T after_block_barrier_value(T v) {
  after_block_barrier();
  return v;
}

}  // namespace hirace

#endif  // HIRACE_CLOCKS_H
