// The device's two logs, races and out-of-bounds accesses: open-addressed hash tables keyed by what
// their records fold by, a record made once per key (the warp's lanes of one key folded first), a
// count per record, and the accesses past the cap counted as dropped. The host reads them back
// (host_readback.h).
#ifndef HIRACE_DEVICE_LOG_H
#define HIRACE_DEVICE_LOG_H

#include "launch_state.h"

namespace hirace {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: this unit's configuration's own)

// The two logs are open-addressed hash tables (LogEntry, log_mask + 1 entries, at least twice
// log_cap) keyed by what their records fold by, so an access finds its record, or makes it, in a few
// probes however many records there are. (They were lists that each access scanned whole: where
// thousands of threads reached one site out of bounds, their first wave made hundreds of records of
// it before any was published, and every later access read them all, srad_v2 76x.) The lanes of a
// warp that log the same key fold first: one atomic for them all. A record is made once: its maker
// wins the key's entry, writes the record, then takes the next number of `made` (the order reports
// keep); past log_cap, no more records are made and the accesses count as dropped.

// the key of a race record: (site, prior site, prior state, space, launch slot), never 0
CCTK_HD inline unsigned long long race_key(const RaceRecord &r) {
  constexpr unsigned state_at = 2 * kSiteIdBits + 1, space_at = state_at + fsm::kStateBits, slot_at = space_at + 1;
  static_assert(slot_at + 7 <= 63 && kPendingLaunches <= 128, "a race record's key fits 63 bits");
  unsigned long long prior = r.prior_site == ~0u ? 0 : r.prior_site + 1ull;
  return 1ull << 63 | (unsigned long long)r.site | prior << kSiteIdBits | (unsigned long long)r.prior_state << state_at |
         (unsigned long long)r.space << space_at | (unsigned long long)r.slot << slot_at;
}
// the key of an out-of-bounds record: (site, buffer), never 0
CCTK_HD inline unsigned long long mem_key(const MemRecord &m) {
  unsigned long long buffer = m.buffer == kNoBuffer ? 0 : m.buffer + 1ull;
  return 1ull << 63 | (unsigned long long)m.site | buffer << kSiteIdBits;
}

// The entry of `key` in `table`, claimed (`*made_it` true) where there was none; null when the log
// holds log_cap records and none is this key's.
template <class R> CCTK_D inline LogEntry<R> *log_entry(LogEntry<R> *table, unsigned long long key, unsigned *made,
                                                        bool *made_it) {
  const LaunchState &L = g_launch;
  unsigned h = unsigned((key * 0x9E3779B97F4A7C15ull) >> 40);
  for (unsigned probe = 0; probe <= L.log_mask; ++probe) {
    LogEntry<R> &e = table[(h + probe) & L.log_mask];
    unsigned long long k = *(volatile unsigned long long *)&e.key;
    if (k == 0) {
      if (*(volatile unsigned *)made >= L.log_cap) return nullptr;
      k = atomicCAS(&e.key, 0ull, key);
      if (k == 0) {
        *made_it = true;
        return &e;
      }
    }
    if (k == key) return &e;
  }
  return nullptr;
}

// How many lanes of the warp log `key` here, 0 in all but one of them (which logs for them all).
CCTK_D inline unsigned log_lanes(unsigned long long key) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  unsigned peers = __match_any_sync(__activemask(), key);
  unsigned lane = linear_tid() & 31u;
  return lane == unsigned(__ffs(peers) - 1) ? unsigned(__popc(peers)) : 0u;
#else
  (void)key;
  return 1;
#endif
}

// `weight`: the accesses this lane's record stands for (0: one, folded with the warp's lanes of
// the same key; see log_lanes).
template <class R> CCTK_D inline void log_record(LogEntry<R> *table, unsigned *made, unsigned *dropped, const R &r,
                                                 unsigned long long key, unsigned weight = 0) {
  const LaunchState &L = g_launch;
  unsigned n = weight ? weight : log_lanes(key);
  if (!n) return;
  bool made_it = false;
  LogEntry<R> *e = log_entry(table, key, made, &made_it);
  if (!e) {
    atomicAdd(dropped, n);
    *(volatile unsigned *)L.noted = 1;
    return;
  }
  if (made_it) {
    e->r = r;
    e->seq = atomicAdd(made, 1u);
    *(volatile unsigned *)L.noted = 1;
  }
  atomicAdd(&e->count, n);
}

// One record per (launch, site, prior site, prior state, space).
CCTK_D inline void log_race(const RaceRecord &r) {
  const LaunchState &L = g_launch;
  log_record(L.log, L.log_count, L.dropped, r, race_key(r));
}

// One record per (site, buffer): the first access (of those that came together) and a count.
CCTK_D inline void log_out_of_bounds(const MemRecord &m, unsigned weight = 0) {
  const LaunchState &L = g_launch;
  log_record(L.mem_log, L.mem_count, L.mem_dropped, m, mem_key(m), weight);
}

}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace hirace

#endif  // HIRACE_DEVICE_LOG_H
