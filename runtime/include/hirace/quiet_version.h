// The quiet version of a kernel (namespace q): the copy launched where every site's launch
// condition holds (hirace/quiet_version.py; chosen by host_launch.h before_launch), whose sites test
// their bounds inline and note a failed test in the thread's journal, logged as the thread leaves;
// it keeps no clocks. Also the check that every quiet form and hook has its namesake here.
#ifndef HIRACE_QUIET_VERSION_H
#define HIRACE_QUIET_VERSION_H

#include "quiet.h"

namespace hirace {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: this unit's configuration's own)

// The quiet version of a kernel (hirace/planner.py, quiet_versions): a kernel whose every site is
// quiet gets a second version, launched in its place where the host finds every site's launch
// condition holding (own indices, block shapes, quiet parameters; the kernel selected, no thread
// filter: host_launch.h before_launch). There no access can race, and one whose bounds test fails is out
// of bounds: the check would report it and divert it, and nothing else. These sites test their
// bounds inline, divert a failed access as the check does and note it in the thread's journal,
// local memory that no pointer of the program can reach (so the program's own loads and stores
// move freely around the sites); the journal is logged when the thread leaves the kernel. The sites
// make no call: a returning call at each site cost the quiet sites more than their tests
// (bench/results/hirace_speed_h100/shared_path).
namespace q {

// (out of line, each: the quiet version's registers are its body's, not these paths')
HIRACE_OUT_OF_LINE CCTK_D inline bool locate_apart(const void *p, Location *loc) { return locate(p, loc); }
// (the warp's lanes that log one key give their counts to one of them, as log_lanes does for the check)
HIRACE_OUT_OF_LINE CCTK_D inline void log_apart(MemRecord m, unsigned count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned peers = __match_any_sync(__activemask(), mem_key(m));
  count = __reduce_add_sync(peers, count);
  if ((linear_tid() & 31u) != unsigned(__ffs(peers) - 1)) return;
#endif
  log_out_of_bounds(m, count);
}
// An out-of-bounds access's record as check makes it, standing for `count` accesses of the site by
// this thread (the first of them: `p`).
HIRACE_OUT_OF_LINE CCTK_D inline void log_outside(const void *p, const volatile void *base, unsigned long long bytes,
                                                  unsigned site, unsigned kind, unsigned size, unsigned count) {
  const LaunchState &L = g_launch;
  unsigned tid = linear_tid(), bid = linear_bid();
  long long delta = (long long)((const char *)p - (const char *)base);
  Location loc;
  if (bytes) {   // a declared array
    bool where = locate_apart((const void *)base, &loc);
    log_apart(MemRecord{site, tid, bid, kind, where ? loc.space : unsigned(kGlobal), kNoBuffer, delta,
                        bytes == kDynamicShared ? L.dynamic_shared : bytes, size, 1u, L.slot}, count);
  } else if (locate_apart((const void *)base, &loc)) {   // the buffer a quiet parameter points into
    log_apart(MemRecord{site, tid, bid, kind, loc.space, loc.buffer, loc.offset + delta, loc.limit, size, 1u, L.slot},
              count);
  }
}
CCTK_D inline void log_lost(unsigned count) {
  atomicAdd(g_launch.mem_dropped, count);
  *(volatile unsigned *)g_launch.noted = 1;
}

// A thread's out-of-bounds accesses, by site: the first few sites it meets, then a count of the rest
// (logged as records the log could not keep).
constexpr unsigned kJournalSites = 4;
struct Journal {
  struct Entry {
    const void *p;
    const volatile void *base;
    unsigned long long bytes;
    unsigned site, kind, size, count;
  };
  Entry e[kJournalSites];
  unsigned used = 0, lost = 0;
  CCTK_D Journal() {}
  Journal(const Journal &) = delete;
  CCTK_D ~Journal() {
#if HIRACE_BENCH_QUIET_VERSION_FLOOR   // (benchmarks only: bench_switches.h)
    return;
#endif
#pragma unroll 1
    for (unsigned j = 0; j < used; ++j) log_outside(e[j].p, e[j].base, e[j].bytes, e[j].site, e[j].kind, e[j].size, e[j].count);
    if (lost) log_lost(lost);
  }
  CCTK_D void note(const void *p, unsigned site, fsm::Access kind, unsigned size, const volatile void *base,
                   unsigned long long bytes) {
#pragma unroll 1
    for (unsigned j = 0; j < used; ++j)
      if (e[j].site == site) {
        ++e[j].count;
        return;
      }
    if (used < kJournalSites) e[used++] = Entry{p, base, bytes, site, unsigned(kind), size, 1u};
    else ++lost;
  }
};

// An access whose bounds test failed: noted and diverted (as the check does: not where bounds are off)
template <class T> CCTK_D inline T *outside(Journal &j, T *p, unsigned site, fsm::Access kind, void *sink,
                                            const volatile void *base, unsigned long long bytes) {
#if HIRACE_BENCH_QUIET_VERSION_FLOOR && defined(__CUDA_ARCH__)   // (benchmarks only: the version's floor)
  __trap();
  return p;
#else
  if (!g_launch.bounds) return p;
  j.note((const void *)p, site, kind, sizeof(T), base, bytes);
  return diverted(p, sink);
#endif
}
template <class T> CCTK_D inline bool in_param(T *p, unsigned bit) {
  const LaunchState &L = g_launch;
  unsigned long long a = (unsigned long long)p;
  return a >= L.quiet_lo[bit] && a + sizeof(T) <= L.quiet_hi[bit];
}
template <class T> CCTK_D inline T *rd_bounds(Journal &j, T *p, unsigned site, const volatile void *base,
                                              unsigned long long bytes) {
  return in_declared(p, base, bytes) ? p : outside(j, p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
template <class T> CCTK_D inline T *atomic_block_bounds(Journal &j, T *p, unsigned site, const volatile void *base,
                                                        unsigned long long bytes) {
  return in_declared(p, base, bytes) ? p : outside(j, p, site, fsm::kBlockAtomic, g_launch.sink_write, base, bytes);
}
template <class T> CCTK_D inline T *atomic_device_bounds(Journal &j, T *p, unsigned site, const volatile void *base,
                                                         unsigned long long bytes) {
  return in_declared(p, base, bytes) ? p : outside(j, p, site, fsm::kDeviceAtomic, g_launch.sink_write, base, bytes);
}
// (own: the block fits the array, which the host found: the word is the thread's and in bounds)
template <class T> CCTK_D inline T *wr_private(Journal &, T *p, unsigned, const volatile void *, unsigned long long, bool) {
  return p;
}
template <class T> CCTK_D inline T *rd_private(Journal &, T *p, unsigned, const volatile void *, unsigned long long, bool) {
  return p;
}
template <class T> CCTK_D inline T *rmw_private(Journal &, T *p, unsigned, const volatile void *, unsigned long long, bool) {
  return p;
}
template <class T> CCTK_D inline T *rd_apart(Journal &j, T *p, unsigned site, const volatile void *base,
                                             unsigned long long bytes, bool) {
  return in_declared(p, base, bytes) ? p : outside(j, p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
template <class T> CCTK_D inline T *wr_apart(Journal &j, T *p, unsigned site, const volatile void *base,
                                             unsigned long long bytes, bool) {
  return in_declared(p, base, bytes) ? p : outside(j, p, site, fsm::kWrite, g_launch.sink_write, base, bytes);
}
template <class T> CCTK_D inline T *rmw_apart(Journal &j, T *p, unsigned site, const volatile void *base,
                                              unsigned long long bytes, bool) {
  return in_declared(p, base, bytes) ? p : outside(j, p, site, fsm::kRead, g_launch.sink_write, base, bytes);
}
template <class T> CCTK_D inline T *rd_param(Journal &j, T *p, unsigned site, const volatile void *base, unsigned bit) {
  if (in_param(p, bit)) return quiet_footprint(p, fsm::kRead, false, bit), p;
  return outside(j, p, site, fsm::kRead, g_launch.sink_read, base, 0);
}
// (a version runs where its own tests hold, the own partner's too: as rd_param)
template <class T> CCTK_D inline T *rd_paired(Journal &j, T *p, unsigned site, const volatile void *base, unsigned bit, bool) {
  return rd_param(j, p, site, base, bit);
}
// (each in its launch's footprint, where the program's host order is followed: check.h quiet_footprint)
template <class T> CCTK_D inline T *rd_own(Journal &j, T *p, unsigned site, const volatile void *base, unsigned bit, bool) {
  if (in_param(p, bit)) return quiet_footprint(p, fsm::kRead, false, bit), p;
  return outside(j, p, site, fsm::kRead, g_launch.sink_read, base, 0);
}
template <class T> CCTK_D inline T *wr_own(Journal &j, T *p, unsigned site, const volatile void *base, unsigned bit, bool) {
  if (in_param(p, bit)) return quiet_footprint(p, fsm::kWrite, false, bit), p;
  return outside(j, p, site, fsm::kWrite, g_launch.sink_write, base, 0);
}
template <class T> CCTK_D inline T *rmw_own(Journal &j, T *p, unsigned site, const volatile void *base, unsigned bit, bool) {
  if (in_param(p, bit)) return quiet_footprint(p, fsm::kRead, true, bit), p;
  return outside(j, p, site, fsm::kRead, g_launch.sink_write, base, 0);
}
template <class T> CCTK_D inline T *atomic_param(Journal &j, T *p, unsigned site, const volatile void *base, unsigned bit) {
  if (in_param(p, bit)) return quiet_footprint(p, fsm::kDeviceAtomic, false, bit), p;
  return outside(j, p, site, fsm::kDeviceAtomic, g_launch.sink_write, base, 0);
}
// A site of a declared array whose index a proof shows inside the array wherever the version runs
// (hirace/proofs/bounds.py; its launch condition is in the version's host test): the access itself, as
// the program wrote it (no test, no diversion: the compiler keeps it a shared-memory access).
template <class T> CCTK_D inline T *inside(T *p, unsigned) { return p; }
// No clocks: nothing in a quiet version reads them
CCTK_D inline void block_entry(bool = false) {}
CCTK_D inline void after_block_barrier() {}
CCTK_D inline void after_warp_barrier() {}
CCTK_D inline void after_grid_barrier() {}
CCTK_D inline void after_group_barrier(unsigned long long, bool = true) {}
CCTK_D inline unsigned warp_mask(unsigned mask) { return mask; }
CCTK_D inline void after_warp_mask() {}
template <class T> CCTK_D inline T after_block_barrier_value(T v) { return v; }
CCTK_D inline bool own_index(long long, long long, long long, long long, long long, long long, long long,
                             long long = 0, long long = 1) {
  return true;   // (the host found it so)
}
// (a device function's, never in a version's copy: as the kernel's own)
template <class T> CCTK_D inline T *rd_ctx(Journal &, T *p, unsigned site, bool quiet) { return ::hirace::rd_ctx(p, site, quiet); }
template <class T> CCTK_D inline T *atomic_block_ctx(Journal &, T *p, unsigned site, const volatile void *base,
                                                     unsigned long long bytes) { return ::hirace::atomic_block_ctx(p, site, base, bytes); }
template <class T> CCTK_D inline T *atomic_device_ctx(Journal &, T *p, unsigned site, const volatile void *base,
                                                      unsigned long long bytes) { return ::hirace::atomic_device_ctx(p, site, base, bytes); }
template <class T> CCTK_D inline T *wr_ctx(Journal &, T *p, unsigned site, bool quiet) { return ::hirace::wr_ctx(p, site, quiet); }
template <class T> CCTK_D inline T *rmw_ctx(Journal &, T *p, unsigned site, bool quiet) { return ::hirace::rmw_ctx(p, site, quiet); }
template <class... T> CCTK_D inline bool lanes_apart(T...) { return true; }
template <class... T> CCTK_D inline bool forms_apart(T...) { return true; }   // (the host found it so)
template <class... T> CCTK_D inline bool fold_index(T...) { return true; }    // (the host found it so)

}  // namespace q

// Every quiet form and hook the planner writes (instrument/protocol.py QUIET_FORMS, QUIET_HOOKS) has
// its namesake in namespace hirace (the kernel's own sites) and in namespace q (its quiet version's),
// and every form only a version calls (VERSION_FORMS) in namespace q: one missing fails the build of
// this header.
namespace quiet_names {
namespace whole {
#define HIRACE_NAMED(name) using ::hirace::name;
CCTK_HIRACE_QUIET_FORMS(HIRACE_NAMED)
CCTK_HIRACE_QUIET_HOOKS(HIRACE_NAMED)
#undef HIRACE_NAMED
}  // namespace whole
namespace version {
#define HIRACE_NAMED(name) using ::hirace::q::name;
CCTK_HIRACE_QUIET_FORMS(HIRACE_NAMED)
CCTK_HIRACE_QUIET_HOOKS(HIRACE_NAMED)
CCTK_HIRACE_VERSION_FORMS(HIRACE_NAMED)
#undef HIRACE_NAMED
}  // namespace version
}  // namespace quiet_names

}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace hirace

#endif  // HIRACE_QUIET_VERSION_H
