// hirace's host-side state: the buffers it tracks (allocations and __device__ variables), what it
// keeps of each launch and of the races and out-of-bounds accesses read back, its own device memory
// and scratch, the pending launches, and the indices of the device's counters. One State per
// process (`state()`), shared by every translation unit.
#ifndef HIRACE_HOST_STATE_H
#define HIRACE_HOST_STATE_H

#include "cudacommon/host_runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <mutex>
#include <pthread.h>
#include <type_traits>
#include <vector>

#include "alloc_hooks.h"   // the allocation kinds (its macros come below)
#include "runtime.h"
#include "units.h"

namespace hirace {
namespace host {

struct Buffer {
  void *base;
  size_t size;
  unsigned long long *shadow;
  unsigned *sites;
  std::string name;
  bool live;
  size_t redzone;  // bytes on each side, allocated with it (0: none)
  std::string file;  // where the program allocated (declared) it; line 0: unknown
  unsigned line;
  int kind = -1;     // how the program allocated it (alloc_hooks.h AllocKind); -1: a __device__ variable
  unsigned shift = 0;   // its shadow word covers 1 << shift bytes (host_alloc.h kBufferShift, refine_buffer)
  bool checked = false;  // it had a shadow (host_buffer_state.h: from the first launch that may write it)
  int device = 0;        // the device current when it was allocated (its shadow goes there too)
  bool budgeted = false;     // it went without prior-site slots for the memory budget (host_site_budget.h)
  bool wants_sites = false;  // a race was found in it without slots: it gets them whatever the budget
};

struct Symbol {
  void *(*address)();
  size_t size;
  const char *name;
  int buffer;  // index into buffers once resolved, else -1
  const char *file;
  unsigned line;
};

// An out-of-bounds access site, merged over launches: the first launch's record and the total count.
struct LoggedMem {
  MemRecord r;
  unsigned launch;
};

struct LoggedRace {
  RaceRecord r;
  unsigned launch;
  bool budgeted = false;   // its earlier site is unknown: its buffer kept no slots then (host_site_budget.h)
};

struct LaunchInfo {
  std::string kernel;
  unsigned grid[3], block[3];
  unsigned dropped;
  unsigned wrapped;
  unsigned mem_dropped;
  unsigned quiet;   // 1: the launch ran the kernel's quiet version
  unsigned failed = 0;   // 1: the launch itself failed (its configuration): the kernel never ran
  unsigned quiet_params = 0;   // bit i: the kernel's i-th quiet candidate was quiet in this launch
};

struct State {
  // stream capture (CUDA graphs): captures begun and not ended; the launches recorded meanwhile,
  // which their graphs run outside hirace's brackets, unchecked (the one in flight: captured_now)
  int capturing = 0;
  unsigned long long captured_launches = 0;
  bool captured_now = false;
  // (the options' defaults: cudacommon/protocol.h env_default, from instrument/protocol.py)
  bool init = false, prior_sites = ::cctk::env_default::kHiracePriorSites, enabled = true,
       bounds = ::cctk::env_default::kHiraceBounds;
  // kernels' quiet versions launched where they may be (HIRACE_QUIET_VERSIONS)
  bool quiet_versions = ::cctk::env_default::kHiraceQuietVersions;
  std::string log_path, kernels, kernels_exclude;   // (kernels: ",a,b,"; empty: every kernel)
  std::string log_dir;   // HIRACE_LOG_DIR: a log of this process's own there (units.h log_in_dir)
  unsigned log_cap = unsigned(::cctk::env_default::kHiraceMaxReports);
  unsigned bid_lo = 0, bid_hi = ~0u, tid_lo = 0, tid_hi = ~0u;
  std::vector<Buffer> buffers;
  std::vector<Symbol> symbols;
  std::vector<void (*)(const LaunchState &, bool)> tus;
  std::vector<LoggedRace> races;
  std::vector<LoggedMem> mem_errors;
  std::vector<LaunchInfo> launches;
  // a forked child: what it holds of its parent's records is the parent's to write (fork_child)
  long pid = 0;
  size_t parents_launches = 0, parents_races = 0, parents_mems = 0;
  std::vector<std::pair<void *, size_t>> tool_memory;  // hirace's own device allocations
  // device-side scratch, reused across launches
  Range *d_ranges = nullptr;
  size_t d_ranges_cap = 0;
  unsigned *d_clocks = nullptr;
  size_t d_clocks_bytes = 0;
  unsigned long long *d_shared = nullptr;
  unsigned *d_shared_sites = nullptr;
  size_t d_shared_bytes = 0, d_shared_sites_bytes = 0;
  LogEntry<RaceRecord> *d_log = nullptr;   // log_entries each (see log_record)
  LogEntry<MemRecord> *d_mem_log = nullptr;
  unsigned log_entries = 0;
  unsigned *d_counts = nullptr;  // kCounts: see the k*Count indices below
  void *d_sinks = nullptr;       // the read sink (zeros), then the write sink
  // per site: its check ran (LaunchState::ran), on the device, and what earlier arrays (a reset, more
  // sites registered) noted, on the host
  unsigned char *d_ran = nullptr;
  size_t ran_cap = 0;
  std::vector<unsigned char> ran_seen;
  bool records_ran = false;   // some unit was built to note its sites that ran (HIRACE_SITES_RAN)
  unsigned *h_noted = nullptr, *d_noted = nullptr;   // host-mapped: a launch logged something (LaunchState::noted)
  LaunchState *h_off = nullptr;  // pinned: the state between launches, copied without waiting
  // Launches not read back yet, by pending slot: their index in `launches` (see before_launch), and
  // the pinned copy of each one's state that its (asynchronous) copy to the device reads.
  std::vector<unsigned> pending;
  LaunchState *h_states = nullptr;
  bool last_in_order = false;    // the launch between before_ and after_launch needs no wait
  bool quiet_chosen = false;     // that launch runs the kernel's quiet version (see quiet_version)
  int pending_device = 0;        // the device the pending launches run on
  bool drain_registered = false;
  unsigned sites_evicted = 0;    // device memory ran short: the buffers' prior-site slots were given up
  // the slots' memory budget (HIRACE_SITES_BUDGET, host_site_budget.h); a buffer asked for them since
  unsigned sites_budget = unsigned(::cctk::env_default::kHiraceSitesBudget);
  bool sites_wanted = false;
  unsigned long long shared_slice_words = 0;
  size_t user_bytes_peak = 0, tool_bytes_peak = 0;  // measured at each launch
  // launch epochs: the shadow's block numbers go on from launch to launch (see ThreadCtx::base);
  // shadows are reset only when the numbering would overflow its field
  unsigned long long block_base = 0;
  unsigned long long site_base = 0;   // the same numbering for the site slots (kSiteTidBits)
  // the range table on the device is rebuilt only when a buffer or hirace's memory comes or goes
  unsigned long long generation = 1, table_generation = 0;
  unsigned nranges = 0;
  // what the current launch adds to the program's dynamic shared memory (smem mode: padding and area)
  size_t launch_extra = 0;
  std::vector<std::pair<const void *, cudaFuncAttributes>> kernel_attrs;
  // synchronisation through memory (units built with HIRACE_MEMORY_SYNC=1 register a setter of their
  // copy of the launch's record, memory_sync_hooks.h g_memsync): the record, reused from launch to launch
  std::vector<void (*)(const void *)> memsync_tus;
  void *d_memsync = nullptr;
  size_t d_memsync_bytes = 0;
};

inline State &state() {
  static State s;
  return s;
}

// The device's counters: two shared by the pending launches, then three per pending slot.
constexpr unsigned kRaceCount = 0, kMemCount = 1;
inline constexpr unsigned dropped_count(unsigned slot) { return 2 + 3 * slot; }
inline constexpr unsigned wrapped_count(unsigned slot) { return 3 + 3 * slot; }
inline constexpr unsigned mem_dropped_count(unsigned slot) { return 4 + 3 * slot; }
constexpr unsigned kCounts = 2 + 3 * kPendingLaunches;

inline void write_log();
inline void drain();

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_STATE_H
