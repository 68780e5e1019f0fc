// Where a monitored address lies: its buffer (the range table, a binary search) or the block's
// shared window (hirace's area in smem mode, per-block shadow otherwise), with the shadow and the
// prior-site slots of its words and its offset; `inside` tells an access in bounds from one in a
// redzone or beyond.
#ifndef HIRACE_LOCATE_H
#define HIRACE_LOCATE_H

#include "clocks.h"

namespace hirace {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: this unit's configuration's own)

// Where a monitored address lies: its buffer or shared window, and the offset from its start
// (outside [0, limit) when the address is in a redzone).
struct Location {
  unsigned long long *shadow;
  unsigned *sites;
  long long offset;          // bytes from the start of the buffer / shared window
  unsigned long long limit;  // bytes in the buffer / shared window
  unsigned space, buffer;
  long long floor;           // the lowest offset of the program's (the window's reserved bytes lie below)
  unsigned shift;            // a shadow word covers 1 << shift bytes: the buffer's (host_granularity.h), the launch's in shared memory
};

CCTK_D inline bool inside(const Location &loc, unsigned size) {
  return loc.offset >= loc.floor && (unsigned long long)loc.offset + size <= loc.limit;
}

#if defined(__CUDA_ARCH__)
// smem mode: the access at offset `off` of the block's shared window, whose shadow hirace's area
// keeps from the window's shared_floor on, and its site slots with smem_sites (null without: the
// caller's to find). Every pointer here comes from the block's dynamic shared memory, so that code
// using them inline addresses shared memory as such.
CCTK_D inline Location smem_window(unsigned long long off) {
  const LaunchState &L = g_launch;
  unsigned long long floor_words = L.shared_floor >> L.granularity_shift;
  unsigned long long *area = reinterpret_cast<unsigned long long *>(shared_area());
  unsigned *sites = L.smem_sites ? reinterpret_cast<unsigned *>(area + area_sites_word()) - kSiteSlots * floor_words
                                 : nullptr;
  return Location{area + L.threads_per_block - floor_words, sites, (long long)off,
                  (L.shared_slice_words + floor_words) << L.granularity_shift, kShared, kNoBuffer,
                  (long long)L.shared_floor, L.granularity_shift};
}
#endif

#if defined(CUDAEMU)
// Is range k the one the search would find for address a: the last one starting (redzone included) at
// or before a? (A function of its own, inlined: as a lambda g++ left it a call, up to two per check.)
__attribute__((always_inline)) inline bool answers(const LaunchState &L, unsigned k, unsigned long long a) {
  return k < L.nranges && L.ranges[k].base - L.ranges[k].redzone <= a &&
         (k + 1 == L.nranges || L.ranges[k + 1].base - L.ranges[k + 1].redzone > a);
}
#endif

// false: nowhere hirace watches (host memory, constant, local)
HIRACE_PART CCTK_D inline bool locate(const void *p, Location *loc) {
  const LaunchState &L = g_launch;
#if defined(__CUDA_ARCH__)
  if (__isShared(p)) {
    unsigned long long off = (unsigned long long)__cvta_generic_to_shared(p);
    unsigned long long slice = L.shared_slice_words * linear_bid();
    unsigned *sites = L.shared_sites ? L.shared_sites + kSiteSlots * slice : nullptr;
    if (L.smem) {
      *loc = smem_window(off);
      if (!L.smem_sites && sites)   // the slots in global memory, per block, from the window's floor on
        loc->sites = sites - kSiteSlots * (L.shared_floor >> L.granularity_shift);
      return true;
    }
    *loc = Location{L.shared_shadow + slice, sites, (long long)off, L.shared_slice_words << L.granularity_shift,
                    kShared, kNoBuffer, 0, L.granularity_shift};
    return true;
  }
#elif defined(CUDAEMU)
  size_t off;
  if (::cudaemu::shared_offset(p, &off) || ::cudaemu::shared_guard_offset(p, &off)) {
    unsigned long long slice = L.shared_slice_words * ::cudaemu::detail::g_slot;
    *loc = Location{L.shared_shadow + slice, L.shared_sites ? L.shared_sites + kSiteSlots * slice : nullptr, (long long)off,
                    (unsigned long long)::cudaemu::detail::kSharedWindow, kShared, kNoBuffer, 0, L.granularity_shift};
    return true;
  }
#endif
  unsigned long long a = (unsigned long long)p;
  unsigned lo = 0, hi = L.nranges;
#if defined(CUDAEMU)
  // The cpu backend runs one grid at a time (cudaemu launch.h), and a thread's accesses mostly stay in one
  // or two buffers (`out[i] = in[i] + 1`): the ranges the last two searches found, when one is still the
  // answer the search would give (the last range starting at or before a, redzones included, whatever
  // the table holds now), spare the search.
  static unsigned last[2] = {0, 0};   // (any values are safe: each is tested before it is used)
  if (answers(L, last[0], a)) {
    lo = last[0] + 1;
  } else if (answers(L, last[1], a)) {
    lo = last[1] + 1;
    last[1] = last[0];
    last[0] = lo - 1;
  } else {
#endif
  while (lo < hi) {  // last range starting (redzone included) at or before a
    unsigned mid = (lo + hi) / 2;
    if (L.ranges[mid].base - L.ranges[mid].redzone <= a) lo = mid + 1; else hi = mid;
  }
#if defined(CUDAEMU)
  if (lo) {
    last[1] = last[0];
    last[0] = lo - 1;
  }
  }
#endif
  if (lo == 0) return false;
  const Range &r = L.ranges[lo - 1];
  if (a >= r.base + r.size + r.redzone) return false;
  if (r.kind == kToolMemory) {  // no buffer of the program: an access here is out of bounds
    *loc = Location{nullptr, nullptr, -1, 0, kGlobal, kNoBuffer, 0, L.granularity_shift};
    return true;
  }
  *loc = Location{r.shadow, r.sites, (long long)(a - r.base), r.size, kGlobal, r.id, 0, r.shift};
  return true;
}

}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace hirace

#endif  // HIRACE_LOCATE_H
