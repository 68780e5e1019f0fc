// Reading back what the pending launches logged (drain: wait for them, take their race and
// out-of-bounds records and counters into the launches they came from), the sites that ran (fold_ran),
// and hirace's device memory given back before a device reset and at exit.
#ifndef HIRACE_HOST_READBACK_H
#define HIRACE_HOST_READBACK_H

#include "host_alloc.h"

namespace hirace {
namespace host {

// A log's records in the order they were made, each with its count, its table emptied for the next
// launches; `dropped(slot, n)` takes the accesses of records made past the cap.
template <class R, class Dropped>
inline std::vector<R> log_records(LogEntry<R> *table, unsigned entries, unsigned cap, const char *what,
                                  Dropped dropped) {
  std::vector<LogEntry<R>> all(entries);
  check_cuda(cudaMemcpy(all.data(), table, entries * sizeof(LogEntry<R>), cudaMemcpyDeviceToHost), what);
  check_cuda(cudaMemset(table, 0, entries * sizeof(LogEntry<R>)), what);
  all.erase(std::remove_if(all.begin(), all.end(), [](const LogEntry<R> &e) { return e.key == 0; }), all.end());
  std::sort(all.begin(), all.end(), [](const LogEntry<R> &a, const LogEntry<R> &b) { return a.seq < b.seq; });
  std::vector<R> made;
  for (const LogEntry<R> &e : all) {
    if (e.seq >= cap) {
      dropped(e.r.slot, e.count);
      continue;
    }
    made.push_back(e.r);
    made.back().count = e.count;
  }
  return made;
}

// Read back what the pending launches logged: wait for them, then take their races, memory errors
// and counters into the launches they came from. Nothing to copy when no launch noted anything.
inline void drain() {
  State &s = state();
  if (s.pending.empty()) return;
  int current = 0;   // the pending launches ran on pending_device
  cudaGetDevice(&current);
  if (current != s.pending_device) cudaSetDevice(s.pending_device);
  check_cuda(cudaDeviceSynchronize(), "kernel (under hirace)");
  if (current != s.pending_device) cudaSetDevice(current);
  std::vector<unsigned> launch_of;
  launch_of.swap(s.pending);
  if (!*(volatile unsigned *)s.h_noted) return;
  *(volatile unsigned *)s.h_noted = 0;
  std::vector<unsigned> counts(kCounts);
  check_cuda(cudaMemcpy(counts.data(), s.d_counts, kCounts * sizeof(unsigned), cudaMemcpyDeviceToHost), "race log copy");
  for (size_t i = 0; i < launch_of.size(); ++i) {
    LaunchInfo &l = s.launches[launch_of[i]];
    l.dropped = counts[dropped_count(unsigned(i))];
    l.wrapped = counts[wrapped_count(unsigned(i))];
    l.mem_dropped = counts[mem_dropped_count(unsigned(i))];
  }
  auto launch = [&](unsigned slot) -> LaunchInfo * {
    return slot < launch_of.size() ? &s.launches[launch_of[slot]] : nullptr;
  };
  if (counts[kRaceCount])
    for (const RaceRecord &r : log_records(s.d_log, s.log_entries, s.log_cap, "race log copy",
                                           [&](unsigned slot, unsigned n) { if (LaunchInfo *l = launch(slot)) l->dropped += n; }))
      if (r.slot < launch_of.size()) {   // (the device gives the word: its bytes by the buffer's granularity,
        RaceRecord x = r;                 // which no buffer of a pending launch changes: refine_buffer drains first)
        x.offset <<= r.space != kShared && r.buffer < s.buffers.size() ? s.buffers[r.buffer].shift : kShift;
        // (a buffer's slots come and go only after a drain: what it has now, its launches ran with)
        const bool unnamed = r.prior_site == ~0u && r.space != kShared && r.buffer < s.buffers.size() &&
                             !s.buffers[r.buffer].sites;
        s.races.push_back(LoggedRace{x, launch_of[r.slot], unnamed && s.buffers[r.buffer].budgeted && !s.sites_evicted});
        if (unnamed) race_without_sites(r.buffer);   // (the next launch that races there names it)
      }
  if (counts[kMemCount])
    for (const MemRecord &r : log_records(s.d_mem_log, s.log_entries, s.log_cap, "memory error log copy",
                                          [&](unsigned slot, unsigned n) { if (LaunchInfo *l = launch(slot)) l->mem_dropped += n; })) {
      if (r.slot >= launch_of.size()) continue;
      bool merged = false;   // one report per site and buffer, over all launches
      for (LoggedMem &x : s.mem_errors)
        if (x.r.site == r.site && x.r.buffer == r.buffer) {
          x.r.count += r.count;
          merged = true;
          break;
        }
      if (!merged) s.mem_errors.push_back(LoggedMem{r, launch_of[r.slot]});
    }
  // only an out-of-bounds access (always noted) reaches a sink
  check_cuda(cudaMemset(s.d_counts, 0, kCounts * sizeof(unsigned)), "race log reset");
  check_cuda(cudaMemset(s.d_sinks, 0, kSinkBytes), "out-of-bounds sink reset");
}


// hirace's device memory goes back: the pending launches read back first, then its own allocations
// freed (a process's end or a reset would free them anyway; a row host, instrument/compile/row_host.py, whose
// context outlives the program it unloads and whose reset keeps the context, would not), and every
// device allocation forgotten (at a reset the program's buffers go too): the next launch allocates
// hirace's memory again and tracks the buffers allocated after this.
// `cudaDeviceReset()` -> `(before_reset(), cudaDeviceReset())`; at exit, drain_at_exit.
inline void forget_device_memory(State &s);
inline void fold_ran(State &s);
inline void before_reset() {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  State &s = state();
  if (!s.init) return;
  drain();
  fold_ran(s);
  forget_unit_bases();   // (the next context holds none)
  for (const auto &t : s.tool_memory) (cudaFree)(t.first);
  for (void *pinned : {static_cast<void *>(s.h_noted), static_cast<void *>(s.h_off), static_cast<void *>(s.h_states)})
    if (pinned) (cudaFreeHost)(pinned);
  forget_device_memory(s);
}
inline void drain_at_exit() { before_reset(); }

// What the device's array of sites that ran noted, kept on the host (before it is freed or grown).
inline void fold_ran(State &s) {
  if (!s.d_ran || !s.ran_cap) return;
  std::vector<unsigned char> now(s.ran_cap);
  if (cudaMemcpy(now.data(), s.d_ran, s.ran_cap, cudaMemcpyDeviceToHost) != cudaSuccess) return;
  if (s.ran_seen.size() < now.size()) s.ran_seen.resize(now.size(), 0);
  for (size_t i = 0; i < now.size(); ++i) s.ran_seen[i] |= now[i];
}

inline void forget_device_memory(State &s) {
  for (Buffer &b : s.buffers) {
    b.live = false;
    b.shadow = nullptr;
    b.sites = nullptr;
  }
  for (Symbol &sym : s.symbols) sym.buffer = -1;   // a __device__ variable's memory is new after a reset
  s.tool_memory.clear();
  s.d_ranges = nullptr;
  s.d_ranges_cap = 0;
  s.d_clocks = nullptr;
  s.d_clocks_bytes = 0;
  s.d_shared = nullptr;
  s.d_shared_sites = nullptr;
  s.d_shared_bytes = s.d_shared_sites_bytes = 0;
  s.d_log = nullptr;
  s.d_mem_log = nullptr;
  s.d_counts = nullptr;
  s.d_sinks = nullptr;
  s.d_ran = nullptr;
  s.ran_cap = 0;
  s.h_noted = s.d_noted = nullptr;
  s.h_off = s.h_states = nullptr;
  s.block_base = s.site_base = 0;
  ++s.generation;
  s.kernel_attrs.clear();
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_READBACK_H
