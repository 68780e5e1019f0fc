// cudaemu: what device code calls: the thread's indices, barriers, schedule points, shared memory.
// Included by cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_BUILTINS_H
#define CUDAEMU_BUILTINS_H

namespace cudaemu {

inline const uint3 &thread_idx() { return detail::g_cur->tid; }
inline const uint3 &block_idx() { return detail::g_block->bid; }
inline const dim3 &block_dim() { return detail::g_launch->block; }
inline const dim3 &grid_dim() { return detail::g_launch->grid; }

inline int syncthreads(const char *file, int line, int pred = 1) {
  detail::wait_block_barrier(file, line, pred);
  return detail::g_block->result;
}

inline void syncwarp(const char *file, int line, unsigned mask = 0xffffffffu) {
  detail::warp_meet(mask, 0, file, line);
}
struct SyncwarpAt {  // `__syncwarp()` and `__syncwarp(mask)` with the call site
  const char *file;
  int line;
  void operator()(unsigned mask = 0xffffffffu) const { syncwarp(file, line, mask); }
};

inline unsigned long long switch_count() { return detail::g_switches; }

// True while a kernel's thread runs (false in host code, including host calls of
// __host__ __device__ functions).
inline bool in_kernel() { return detail::g_cur != nullptr; }

// The block barrier the calling thread passed last (right after it: no other completes before the thread
// arrives at its next one): which launch, which of its block's barriers, and how many threads it released.
struct BarrierPassed {
  unsigned long long launch;
  unsigned gen, arrived;
};
inline BarrierPassed last_barrier() { return {detail::g_launch_count, detail::g_block->gen, detail::g_block->last_arrived}; }

// Called by instrumented code at memory accesses: a seeded schedule may
// switch threads here, so racy programs can show their other outcomes.
inline void maybe_yield() {
  // (at every checked access: the loaded options read inline, the environment once, out of line)
  const detail::Config &c = detail::g_cfg.loaded ? detail::g_cfg : detail::config();
  if (c.switch_p > 0 && detail::g_cur && detail::g_rng.uniform() < c.switch_p) detail::switch_away(true);
}

// The form instrumented code uses: `(*::cudaemu::yield_at(&(a[i])))`.
template <class T> inline T *yield_at(T *p) {
  maybe_yield();
  return p;
}

template <class T> T &block_shared(const void *key) {
  using detail::Block;
  auto &slots = detail::g_block->shared;
  for (auto &s : slots)
    if (s.key == key) return *static_cast<T *>(s.ptr);
  Block &b = *detail::g_block;
  size_t bytes = (sizeof(T) + 63) / 64 * 64;
  if (b.arena_used + bytes + b.dyn_bytes > detail::kSharedWindow)
    detail::fault(kExitEmulationFault, "shared memory of one block exceeds the cpu backend's 256 KiB window");
  void *p = detail::g_arena + b.arena_used;
  b.arena_used += bytes;
  std::memset(p, 0, bytes);
  slots.push_back({key, p});
  return *static_cast<T *>(p);
}

// Where p lies in the current block's shared window, like __cvta_generic_to_shared.
inline bool shared_offset(const void *p, size_t *offset) {
  const char *c = static_cast<const char *>(p);
  if (!detail::g_block || c < detail::g_arena || c >= detail::g_arena + detail::kSharedWindow) return false;
  *offset = size_t(c - detail::g_arena);
  return true;
}
// Where p lies in the guard page after the current block's shared window (the end of its dynamic
// shared memory): an out-of-bounds shared access, as offset from the window's start.
namespace detail {
inline const size_t g_page = size_t(sysconf(_SC_PAGESIZE));   // (read once, not at every access)
}
inline bool shared_guard_offset(const void *p, size_t *offset) {
  const char *c = static_cast<const char *>(p);
  const char *end = detail::g_arena + detail::kSharedWindow;
  if (!detail::g_block || c < end || c >= end + detail::g_page) return false;
  *offset = size_t(c - detail::g_arena);
  return true;
}
inline size_t linear_thread() { return detail::g_cur->linear; }
inline unsigned linear_block() { return detail::g_block->linear; }

template <class T> T *dynamic_shared() { return static_cast<T *>(detail::g_block->dyn); }

}  // namespace cudaemu

#endif  // CUDAEMU_BUILTINS_H
