// hirace device-side runtime: where a monitored word's shadow lives, the checks
// instrumented accesses call, barrier clocks, and the bounded race log.
// Compiles with nvcc (device code) and, on the cpu backend, as host code.
#ifndef HIRACE_RUNTIME_H
#define HIRACE_RUNTIME_H

#include "config.h"
#include "update.h"

#include "cudacommon/qualifiers.h"

namespace hirace {

enum Space : unsigned { kGlobal = 0, kShared = 1 };

// One monitored global buffer: [base, base + size) with its shadow words.
struct Range {
  unsigned long long base, size;
  unsigned long long *shadow;
  unsigned *sites;  // last accessor's site per word (only with prior_sites)
  unsigned id;      // the host's buffer id, for reports
};

// A race as the device records it; the host turns it into a report.
struct RaceRecord {
  unsigned site, prior_site, tid, bid, prior_tid, prior_bid, prior_state, access, space, buffer;
  unsigned long long offset;  // bytes from the buffer (or shared window) start
  unsigned count;             // word-level races folded into this record
};

// Everything a launch's instrumented code reads; copied into each translation
// unit's copy of g_launch before every launch.
struct LaunchState {
  unsigned enabled;
  unsigned granularity_shift;  // shadow word covers 1 << shift bytes
  unsigned prior_sites;
  unsigned threads_per_block;
  const Range *ranges;  // sorted by base
  unsigned nranges;
  unsigned long long *shared_shadow;  // per block: shared_slice_words words
  unsigned *shared_sites;
  unsigned long long shared_slice_words;
  unsigned *clocks;  // per thread: block clock, warp clock
  RaceRecord *log;
  unsigned *log_count;
  unsigned *dropped;
  unsigned log_cap;
  unsigned *wrapped;  // set when a barrier clock wraps (see sync_status)
  unsigned bid_lo, bid_hi, tid_lo, tid_hi;  // only threads in these ranges are checked
};

static CCTK_DEVICE_GLOBAL LaunchState g_launch;

CCTK_D inline unsigned linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
CCTK_D inline unsigned linear_bid() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
CCTK_D inline unsigned *thread_clocks() {
  const LaunchState &L = g_launch;
  return L.clocks + 2ull * (linear_bid() * (unsigned long long)L.threads_per_block + linear_tid());
}

CCTK_D inline void after_block_barrier() {
  if (g_launch.enabled && ++thread_clocks()[0] == (1u << ShadowWord::kBclkBits)) *g_launch.wrapped = 1;
}
CCTK_D inline void after_warp_barrier() {
  if (g_launch.enabled && ++thread_clocks()[1] == (1u << ShadowWord::kWclkBits)) *g_launch.wrapped = 1;
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

struct Location {
  unsigned long long *shadow;
  unsigned *sites;
  unsigned long long offset;  // bytes from the start of the buffer / shared window
  unsigned long long limit;   // bytes in the buffer / shared window
  unsigned space, buffer;
};

CCTK_D inline bool locate(const void *p, Location *loc) {
  const LaunchState &L = g_launch;
#if defined(__CUDA_ARCH__)
  if (__isShared(p)) {
    unsigned long long off = (unsigned long long)__cvta_generic_to_shared(p);
    unsigned long long slice = L.shared_slice_words * linear_bid();
    *loc = Location{L.shared_shadow + slice, L.shared_sites ? L.shared_sites + slice : nullptr, off,
                    L.shared_slice_words << L.granularity_shift, kShared, 0};
    return true;
  }
#elif defined(CUDAEMU)
  size_t off;
  if (::cudaemu::shared_offset(p, &off)) {
    unsigned long long slice = L.shared_slice_words * ::cudaemu::detail::g_slot;
    *loc = Location{L.shared_shadow + slice, L.shared_sites ? L.shared_sites + slice : nullptr, off,
                    L.shared_slice_words << L.granularity_shift, kShared, 0};
    return true;
  }
#endif
  unsigned long long a = (unsigned long long)p;
  unsigned lo = 0, hi = L.nranges;
  while (lo < hi) {  // last range with base <= a
    unsigned mid = (lo + hi) / 2;
    if (L.ranges[mid].base <= a) lo = mid + 1; else hi = mid;
  }
  if (lo == 0) return false;
  const Range &r = L.ranges[lo - 1];
  if (a >= r.base + r.size) return false;
  *loc = Location{r.shadow, r.sites, a - r.base, r.size, kGlobal, r.id};
  return true;
}

CCTK_D inline void log_race(const RaceRecord &r) {
  const LaunchState &L = g_launch;
  unsigned n = *(volatile unsigned *)L.log_count;
  if (n > L.log_cap) n = L.log_cap;
  for (unsigned i = 0; i < n; ++i) {  // one record per (site, prior site or state, space)
    RaceRecord &e = L.log[i];
    if (e.site == r.site && e.prior_site == r.prior_site && e.space == r.space &&
        (r.prior_site != ~0u || e.prior_state == r.prior_state)) {
      atomicAdd(&e.count, 1u);
      return;
    }
  }
  unsigned slot = atomicAdd(L.log_count, 1u);
  if (slot < L.log_cap) L.log[slot] = r;
  else atomicAdd(L.dropped, 1u);
}

// The check every instrumented access makes before it happens.
CCTK_D inline void check(const void *p, unsigned size, unsigned site, fsm::Access kind) {
  const LaunchState &L = g_launch;
  if (!L.enabled) return;
  unsigned tid = linear_tid(), bid = linear_bid();
  if (bid < L.bid_lo || bid > L.bid_hi || tid < L.tid_lo || tid > L.tid_hi) return;
  Location loc;
  if (!locate(p, &loc)) return;  // not monitored (host memory, constant, local)
  unsigned *clk = thread_clocks();
  ThreadCtx c{tid, bid, clk[0], clk[1], 32};
  unsigned long long first = loc.offset >> L.granularity_shift;
  unsigned long long end = loc.offset + size;
  if (end > loc.limit) end = loc.limit;
  unsigned long long last = end == 0 ? 0 : (end - 1) >> L.granularity_shift;
  for (unsigned long long w = first; w <= last && (w << L.granularity_shift) < loc.limit; ++w) {
    ShadowWord prior;
    if (update(&loc.shadow[w], c, kind, &prior)) {
      RaceRecord r{site, (L.prior_sites && loc.sites) ? loc.sites[w] : ~0u, c.tid, c.bid, prior.tid(),
                   prior.bid(), prior.state(), unsigned(kind), loc.space, loc.buffer,
                   w << L.granularity_shift, 1u};
      log_race(r);
    }
    if (L.prior_sites && loc.sites) loc.sites[w] = site;
  }
#if defined(CUDAEMU)
  ::cudaemu::maybe_yield();
#endif
}

// Instrumented expressions: `(*::hirace::rd(&(a[i]), 12))`.
template <class T> CCTK_D inline T *rd(T *p, unsigned site) {
  check((const void *)p, sizeof(T), site, fsm::kRead);
  return p;
}
template <class T> CCTK_D inline T *wr(T *p, unsigned site) {
  check((const void *)p, sizeof(T), site, fsm::kWrite);
  return p;
}
template <class T> CCTK_D inline T *rmw(T *p, unsigned site) {
  check((const void *)p, sizeof(T), site, fsm::kRead);
  check((const void *)p, sizeof(T), site, fsm::kWrite);
  return p;
}
template <class T> CCTK_D inline T *atomic_block(T *p, unsigned site) {
  check((const void *)p, sizeof(T), site, fsm::kBlockAtomic);
  return p;
}
template <class T> CCTK_D inline T *atomic_device(T *p, unsigned site) {
  check((const void *)p, sizeof(T), site, fsm::kDeviceAtomic);
  return p;
}

}  // namespace hirace

#endif  // HIRACE_RUNTIME_H
