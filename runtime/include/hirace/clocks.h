// Barrier clocks: where a thread's two clocks live (hirace's area of the block's dynamic shared
// memory in smem mode, else global memory), the area cleared at each block's entry (block_entry),
// and the clock steps after __syncthreads, __syncwarp and cooperative-groups barriers.
#ifndef HIRACE_CLOCKS_H
#define HIRACE_CLOCKS_H

#include "bench_switches.h"
#include "launch_state.h"
#include "turn_memo.h"

namespace hirace {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: this unit's configuration's own)

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

// The thread's clocks are about to change: checks made before are another context's (turn_memo.h)
CCTK_D inline void clocks_change() {
#if HIRACE_TURN_MEMO
  turn_memo::forget();
#endif
}

CCTK_D inline void note_wrapped() {
  *g_launch.wrapped = 1;
  *(volatile unsigned *)g_launch.noted = 1;
}
CCTK_D inline void after_block_barrier() {
  if (!g_launch.enabled) return;
  clocks_change();
  unsigned *clk = thread_clocks();
  if (BlockWord::count(clk[0]) < BlockWord::kWrapped && BlockWord::count(++clk[0]) == BlockWord::kWrapped)
    note_wrapped();
}

// After `grid.sync()` (a cooperative launch): everything before it is ordered before everything
// after, as at a launch boundary: the thread's blocks are numbered on by one grid (BlockWord,
// check_words), so what any thread recorded before reads as INIT. Past the numbers the host
// reserved for the launch (LaunchState::grid_epochs) the numbering stays: later grid syncs order
// nothing and the host warns.
CCTK_D inline void after_grid_barrier() {
  if (!g_launch.enabled) return;
  clocks_change();
  unsigned *clk = thread_clocks();
  unsigned g = BlockWord::grid_syncs(clk[0]);
  if (g + 1 < g_launch.grid_epochs) {
    clk[0] = (g + 1) << 16;
  } else {
    note_wrapped();
    after_block_barrier();
  }
}

// The largest of `v` over the lanes of `mask` in the calling thread's warp (all of them take part,
// as in the sync that calls it; exited lanes do not)
CCTK_D inline unsigned lanes_max(unsigned mask, unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(mask, v);
#elif defined(__CUDA_ARCH__)
  const unsigned live = __ballot_sync(mask, 1);   // (an exited lane's value is not read)
  unsigned m = v;
  for (int src = 0; src < 32; ++src) {
    unsigned u = __shfl_sync(mask, v, src);
    if (((live >> src) & 1u) && u > m) m = u;
  }
  return m;
#elif defined(CUDAEMU)
  return __reduce_max_sync(mask, v);
#else
  (void)mask;
  return v;
#endif
}

// After a warp-level sync that narrows the thread's lane groups to `n` (lane_narrowing; 0: the
// whole warp): the lanes of an aligned group join their warp clocks, one past the latest (lanes
// that took part in different syncs count on from one clock again); lanes that are no tile are
// groups of one lane, nothing to join (hirace/fsm.py, lane groups; the model checker's harness
// replays these steps). The word made afresh holds no fence marks (HIRACE_MEMORY_SYNC: WarpWord::marked):
// a warp-level sync resets its lanes' marks.
CCTK_D inline void after_lanes_barrier(unsigned n) {
  if (!g_launch.enabled) return;
  clocks_change();
  unsigned *clk = thread_clocks();
  unsigned w = clk[1], c = WarpWord::count(w);
  if (n < 5) {
    unsigned width = 32u >> n, lane = linear_tid() % 32;
    c = lanes_max(width == 32 ? ~0u : ((1u << width) - 1) << (lane & ~(width - 1)), c);
  }
  if (c < WarpWord::kWrapped && ++c == WarpWord::kWrapped) note_wrapped();
  clk[1] = WarpWord::make(c, n == 0 ? c : WarpWord::full(w), n);
}
CCTK_D inline void after_warp_barrier() { after_lanes_barrier(0); }

#if HIRACE_MEMORY_SYNC
// After a fence (__threadfence, __threadfence_block ...): the thread's warp clock marked, one step on
// (WarpWord::marked), so that its records before the fence tell apart from those after. (The fence's
// part in the launch's record, memsync::fence in memory_sync.h, comes with the device wiring.)
CCTK_D inline void after_fence_mark() {
  if (!g_launch.enabled) return;
  clocks_change();
  unsigned *clk = thread_clocks();
  const unsigned w = clk[1], marked = WarpWord::marked(w);
  if (WarpWord::count(w) < WarpWord::kWrapped && WarpWord::count(marked) == WarpWord::kWrapped) note_wrapped();
  clk[1] = marked;
}
#endif

// `__syncwarp(mask)`: the mask is read as the call's argument (`__syncwarp(warp_mask(m))`), the
// clocks stepped after the sync (`after_warp_mask()`) as the mask narrows the lane groups
CCTK_D inline unsigned warp_mask(unsigned mask) {
  if (g_launch.enabled) {
    clocks_change();
    unsigned *clk = thread_clocks();
    unsigned w = clk[1];
    clk[1] = WarpWord::make(WarpWord::count(w), WarpWord::full(w), WarpWord::narrow(w),
                            lane_narrowing(mask, linear_tid() % 32, 32));
  }
  return mask;
}
CCTK_D inline void after_warp_mask() {
  if (!g_launch.enabled) return;
  unsigned pending = WarpWord::pending(thread_clocks()[1]);
  if (pending != WarpWord::kNoPending) after_lanes_barrier(pending);
}

// A cooperative-groups group of `threads` threads synchronised: the whole block (a barrier), a
// tile of whole warps (a sync of each whole warp), or part of a warp: an aligned tile (`aligned`:
// tiled_partition) or any other set of lanes (coalesced groups: groups of one lane)
CCTK_D inline void after_group_barrier(unsigned long long threads, bool aligned = true) {
  if (threads >= 1ull * blockDim.x * blockDim.y * blockDim.z) {
    after_block_barrier();
  } else if (threads >= 32) {
    after_warp_barrier();
  } else if (aligned && threads && (threads & (threads - 1)) == 0) {
    unsigned lane = linear_tid() % 32, p = unsigned(threads);
    after_lanes_barrier(lane_narrowing(((1u << p) - 1) << (lane & ~(p - 1)), lane, 32));
  } else {
    after_lanes_barrier(5);   // (lane_narrowing of lanes that are no tile)
  }
}

template <class T> CCTK_D inline T after_block_barrier_value(T v) {
  after_block_barrier();
  return v;
}

}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace hirace

#endif  // HIRACE_CLOCKS_H
