// The shared-memory shadow on the cpu backend, made clean as it is used: each of cudaemu's block slots
// has a slice of shadow words and prior-site slots for its whole 256 KiB window, and a block that
// starts in a slot finds what the slot's last block left there. Instead of clearing the slice at every
// block start (1.5 MiB with prior sites), each slot keeps the words made clean since its block started,
// as two extents (the window's lower half, where static __shared__ variables lie, and its upper half,
// where dynamic shared memory ends it); a check of shared words outside them cleans the words between
// first (`cover`, from check.h `check`), and a block start only forgets the extents (`forget`, from
// host_launch.h `reset_cpu_shared_shadow`). The first launch allocates the slices without touching them.
#ifndef HIRACE_CPU_SHARED_H
#define HIRACE_CPU_SHARED_H

#if defined(CUDAEMU)
#include <cstring>

#include "records.h"

namespace hirace {
namespace cpu_shared {

struct Extent {
  unsigned long long lo = 0, hi = 0;   // words [lo, hi) of the half are clean; empty when lo == hi
};
inline Extent g_extents[::cudaemu::detail::kMaxLiveBlocks][2];

// A block starts in `slot`: none of its slice is clean yet.
inline void forget(unsigned slot) {
  g_extents[slot][0] = g_extents[slot][1] = Extent{};
}

// Clean words [a, b) of a slice: an empty shadow word (0) and empty site slots (all ones).
inline void clean(unsigned long long *shadow, unsigned *sites, unsigned long long a, unsigned long long b) {
  if (a >= b) return;
  std::memset(shadow + a, 0, (b - a) * 8);
  if (sites) std::memset(sites + kSiteSlots * a, 0xff, (b - a) * 4 * kSiteSlots);
}

// Make words [first, last] of one half clean, keeping that half's extent one interval.
inline void cover_half(Extent &e, unsigned long long *shadow, unsigned *sites, unsigned long long first,
                       unsigned long long last) {
  if (e.lo == e.hi) {
    clean(shadow, sites, first, last + 1);
    e = Extent{first, last + 1};
    return;
  }
  if (first < e.lo) {
    clean(shadow, sites, first, e.lo);
    e.lo = first;
  }
  if (last >= e.hi) {
    clean(shadow, sites, e.hi, last + 1);
    e.hi = last + 1;
  }
}

// Words [first, last] of the running block's slice (`shadow`, `sites`: the slice's; `words`: its
// length) are about to be checked.
inline void cover(unsigned long long *shadow, unsigned *sites, unsigned long long first, unsigned long long last,
                  unsigned long long words) {
  Extent *ex = g_extents[::cudaemu::detail::g_slot];
  const unsigned long long half = words / 2;
  const unsigned h = first >= half;
  if (first >= ex[h].lo && last < ex[h].hi) return;   // (nearly every access)
  if (h || last < half) {
    cover_half(ex[h], shadow, sites, first, last);
  } else {   // an access across the middle of the window
    cover_half(ex[0], shadow, sites, first, half - 1);
    cover_half(ex[1], shadow, sites, half, last);
  }
}

}  // namespace cpu_shared
}  // namespace hirace
#endif

#endif  // HIRACE_CPU_SHARED_H
