// hirace host-side runtime: tracks the buffers kernels may touch, prepares each
// launch (shadow, clocks, race log), collects races after it, and writes them to
// $HIRACE_LOG as JSON lines when the program exits. Same code on both backends.
#ifndef HIRACE_HOST_H
#define HIRACE_HOST_H

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

#ifndef HIRACE_GRANULARITY_SHIFT
#define HIRACE_GRANULARITY_SHIFT 2
#endif
// 1: the planner found no way for the program's instrumented code to run in a launch hirace does
// not bracket (hirace/planner.py _note_unbracketed), so no "off" state follows each launch
#ifndef HIRACE_BRACKETED_ONLY
#define HIRACE_BRACKETED_ONLY 0
#endif
// 1: a unit built by itself through hirace-cc, with its own site table (units.h)
#ifndef HIRACE_UNITS
#define HIRACE_UNITS 0
#endif
// the program's sites (a program built unit by unit counts its units' instead: units.h)
#ifndef HIRACE_SITE_COUNT
#define HIRACE_SITE_COUNT 0
#endif

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
};

struct LaunchInfo {
  std::string kernel;
  unsigned grid[3], block[3];
  unsigned dropped;
  unsigned wrapped;
  unsigned mem_dropped;
  unsigned quiet;   // 1: the launch ran the kernel's quiet version
  unsigned failed = 0;   // 1: the launch itself failed (its configuration): the kernel never ran
};

struct State {
  // stream capture (CUDA graphs): captures begun and not ended; the launches recorded meanwhile,
  // which their graphs run outside hirace's brackets, unchecked (the one in flight: captured_now)
  int capturing = 0;
  unsigned long long captured_launches = 0;
  bool captured_now = false;
  bool init = false, prior_sites = true, enabled = true, bounds = true;   // prior sites: hirace.config's default
  bool quiet_versions = true;   // kernels' quiet versions launched where they may be (HIRACE_QUIET_VERSIONS)
  std::string log_path, kernels;
  std::string log_dir;   // HIRACE_LOG_DIR: a log of this process's own there (units.h log_in_dir)
  unsigned log_cap = 1024;
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

// In a child the program forks, after init: the child writes a log of its own (beside HIRACE_LOG,
// or in HIRACE_LOG_DIR), of the launches it makes; its parent's records stay its parent's. The
// parent's launches are read back before the fork (fork_prepare): a child that read them after
// would report them as its own.
inline std::recursive_mutex &launch_mutex();
inline void fork_prepare() {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  drain();
}
inline void fork_child() {
  State &s = state();
  s.parents_launches = s.launches.size();
  s.parents_races = s.races.size();
  s.parents_mems = s.mem_errors.size();
}

inline void init() {
  State &s = state();
  if (s.init) return;
  s.init = true;
  s.pid = long(getpid());
  pthread_atfork(fork_prepare, nullptr, fork_child);
  using ::cctk::host::option;
  if (const char *p = option(::cctk::env::kHiraceLog)) s.log_path = p;
  else if (const char *p = option(::cctk::env::kHiraceLogDir)) s.log_dir = p;
  if (const char *p = option(::cctk::env::kHiraceKernels)) s.kernels = std::string(",") + p + ",";
  if (const char *p = option(::cctk::env::kHiraceMaxReports)) s.log_cap = unsigned(std::max(1, std::atoi(p)));
  if (const char *p = option(::cctk::env::kHiracePriorSites)) s.prior_sites = *p == '1';
  if (const char *p = option(::cctk::env::kHiraceQuietVersions)) s.quiet_versions = *p != '0';
  if (const char *p = option(::cctk::env::kHiraceBounds)) s.bounds = *p != '0';
  if (const char *p = option(::cctk::env::kHiraceBlocks)) std::sscanf(p, "%u:%u", &s.bid_lo, &s.bid_hi);
  if (const char *p = option(::cctk::env::kHiraceThreads)) std::sscanf(p, "%u:%u", &s.tid_lo, &s.tid_hi);
  // a run the cpu backend stops has no log: the tool reports the fault instead
  ::cctk::host::at_end(write_log, /*on_fault=*/false);
}

// A kernel's fault is sticky: with launches pending (not waited for), the next CUDA call hirace makes
// returns it, and the message says it is the kernel's.
inline bool kernel_fault(cudaError_t e) {
  return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorLaunchTimeout ||
         e == cudaErrorAssert || e == cudaErrorIllegalInstruction || e == cudaErrorMisalignedAddress;
}
inline void check_cuda(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return;
  if (!state().pending.empty() && kernel_fault(e)) what = "kernel (under hirace)";
  ::cctk::host::fail("hirace", what, e);
}

constexpr unsigned kShift = HIRACE_GRANULARITY_SHIFT;

inline size_t shadow_words(size_t bytes) { return (bytes + (1u << kShift) - 1) >> kShift; }

// hirace's own device memory: allocated through the API's parenthesized name (which the
// tracking macros leave alone) and listed, so that an access of the program that lands there
// is caught as out of bounds instead of corrupting the checker.
inline bool evict_sites();
inline void *try_tool_alloc(size_t bytes);
[[noreturn]] inline void out_of_memory(const char *what, size_t bytes, const char *file = "", unsigned line = 0);
inline void *tool_alloc(size_t bytes, const char *what, const char *file = "", unsigned line = 0) {
  void *p = try_tool_alloc(bytes);
  if (!p && evict_sites()) p = try_tool_alloc(bytes);   // the prior-site slots go first
  if (!p) out_of_memory(what, bytes, file, line);
  return p;
}
// Prior-site slots (empty: all ones), or nullptr when they do not fit: then they are given up for
// every buffer (evict_sites), not fought for.
inline unsigned *site_slots(size_t bytes) {
  void *p = try_tool_alloc(bytes);
  if (p) check_cuda(cudaMemset(p, 0xff, bytes), "site shadow reset");
  else evict_sites();
  return static_cast<unsigned *>(p);
}
inline void tool_free(void *p) {
  if (!p) return;
  auto &t = state().tool_memory;
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].first == p) {
      t.erase(t.begin() + long(i));
      ++state().generation;
      break;
    }
  (cudaFree)(p);
}
// hirace cannot go on without this memory: say what it is for and what would need less, and end.
[[noreturn]] inline void out_of_memory(const char *what, size_t bytes, const char *file, unsigned line) {
  std::fprintf(stderr, "hirace: no device memory left for its %s (%zu bytes", what, bytes);
  if (file && *file) std::fprintf(stderr, "; the buffer allocated at %s:%u", file, line);
  std::fprintf(stderr, "): the program does not fit on the device with hirace's memory beside it (8 bytes of shadow "
               "per %u-byte word of its buffers, 8 bytes of clocks per thread); a coarser granularity "
               "(--granularity 8) halves the shadow, a smaller problem size shrinks both\n", 1u << kShift);
  std::fflush(stderr);
  std::_Exit(::cctk::exit_code::kExitRuntimeFailure);
}

// The same, or nullptr when the device has no room (the error cleared)
inline void *try_tool_alloc(size_t bytes) {
  void *p = nullptr;
  if ((cudaMalloc)(&p, bytes) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  state().tool_memory.push_back({p, bytes});
  ++state().generation;
  return p;
}

// Device memory ran short: the prior-site slots of the program's buffers (16 bytes a word, there only
// to name the other access of a race) go first, so that the program's allocations and the shadows
// still fit; no buffer gets them after that (the log's end record says so). False: none to free.
inline bool evict_sites() {
  State &s = state();
  if (!s.prior_sites) return false;
  s.sites_evicted = 1;
  bool any = false;
  for (const Buffer &b : s.buffers) any |= b.sites != nullptr;
  any |= s.d_shared_sites != nullptr;
  if (!any) return false;
  drain();   // no pending launch may use them
  for (Buffer &b : s.buffers) {
    tool_free(b.sites);
    b.sites = nullptr;
  }
  tool_free(s.d_shared_sites);   // launches keep no sites from now on (see before_launch)
  s.d_shared_sites = nullptr;
  s.d_shared_sites_bytes = 0;
  return true;
}

inline int add_buffer(void *base, size_t size, const char *name, size_t redzone, const char *file, unsigned line) {
  State &s = state();
  Buffer b{base, size, nullptr, nullptr, name ? name : "?", true, redzone, file ? file : "", line};
  size_t words = shadow_words(size);
  if (words) {
    b.shadow = static_cast<unsigned long long *>(tool_alloc(words * 8, "shadow of a buffer", b.file.c_str(), b.line));
    check_cuda(cudaMemset(b.shadow, 0, words * 8), "shadow reset");
    if (s.prior_sites && !s.sites_evicted) b.sites = site_slots(words * 4 * kSiteSlots);
  }
  s.buffers.push_back(b);
  ++s.generation;
  return int(s.buffers.size() - 1);
}

// Redzones around each allocation of the program: an access a little past either end lands in
// memory that belongs to no buffer (and is reported), not in the next buffer or hirace's shadow.
// A multiple of 256 bytes keeps the alignment cudaMalloc promises.
inline size_t redzone_for(size_t bytes) {
  size_t rz = (bytes / 64 + 255) / 256 * 256;
  return std::min<size_t>(std::max<size_t>(rz, 256), size_t(64) << 10);
}

inline cudaError_t raw_alloc(int kind, void **p, size_t bytes, unsigned flags) {
  if (kind == kManagedAlloc) return (cudaMallocManaged)(p, bytes, flags == kDefaultFlags ? cudaMemAttachGlobal : flags);
  if (kind == kHostAlloc) return (cudaHostAlloc)(p, bytes, flags == kDefaultFlags ? cudaHostAllocDefault : flags);
  return (cudaMalloc)(p, bytes);
}

inline std::recursive_mutex &launch_mutex();

// `cudaMalloc(&d, n)` becomes `allocate(kDeviceAlloc, "&d", __FILE__, __LINE__, (void **)(&d), n)`: the
// allocation with its redzones, the pointer the program gets between them, and the buffer tracked.
inline cudaError_t allocate(int kind, const char *name, const char *file, unsigned line, void **where,
                            size_t bytes, unsigned flags = kDefaultFlags) {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  init();
  if (!where || bytes == 0) return raw_alloc(kind, where, bytes, flags);   // as the runtime answers it
  size_t rz = state().bounds ? redzone_for(bytes) : 0;
  void *raw = nullptr;
  cudaError_t e = raw_alloc(kind, &raw, bytes + 2 * rz, flags);
  if (e == cudaErrorMemoryAllocation && evict_sites()) {   // room that hirace's prior sites took
    cudaGetLastError();
    e = raw_alloc(kind, &raw, bytes + 2 * rz, flags);
  }
  if (e != cudaSuccess) {   // no room for the redzones: the allocation as asked
    cudaGetLastError();
    rz = 0;
    e = raw_alloc(kind, &raw, bytes, flags);
    if (e != cudaSuccess) return e;
  }
  char *user = static_cast<char *>(raw) + rz;
  if (rz) {
    if (kind == kHostAlloc) {
      std::memset(raw, 0, rz);
      std::memset(user + bytes, 0, rz);
    } else {
      check_cuda(cudaMemset(raw, 0, rz), "redzone reset");
      check_cuda(cudaMemset(user + bytes, 0, rz), "redzone reset");
    }
  }
  *where = user;
  add_buffer(user, bytes, name, rz, file, line);
  return e;
}

// `cudaFree(p)` becomes `release(kDeviceAlloc, p)`: the buffer's shadow goes, and the allocation
// with its redzones (a pointer hirace did not allocate is passed on as it is).
inline cudaError_t release(int kind, void *p) {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  drain();   // the pending launches read back first (a free waits for them anyway)
  char *raw = static_cast<char *>(p);
  bool found = false;
  for (Buffer &b : state().buffers)
    if (b.live && b.base == p) {
      b.live = false;
      ++state().generation;
      tool_free(b.shadow);
      tool_free(b.sites);
      b.shadow = nullptr;
      b.sites = nullptr;
      if (!found) raw -= b.redzone;
      found = true;
    }
  return kind == kHostAlloc ? (cudaFreeHost)(raw) : (cudaFree)(raw);
}

// `cudaStreamBeginCapture(s, mode)` and `cudaStreamEndCapture(s, &g)` (alloc_hooks.h): while a stream
// captures, launches are recorded, not run, and hirace's own copies would break the capture. (The
// cpu backend's emulation has no graphs: instrument/pipeline.py refuses programs that capture.)
#if !defined(CUDAEMU)
inline void note_captured() {
  if (state().captured_launches)
    std::fprintf(stderr, "hirace: %llu kernel launch(es) were recorded into CUDA graphs (stream capture); the graphs ran "
                 "them outside hirace's brackets, unchecked\n", state().captured_launches);
}
inline cudaError_t begin_capture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  cudaError_t e = (cudaStreamBeginCapture)(stream, mode);
  if (e == cudaSuccess) ++state().capturing;
  static const bool noted = std::atexit(note_captured) == 0;   // (whether or not a launch was ever bracketed)
  (void)noted;
  return e;
}
inline cudaError_t end_capture(cudaStream_t stream, cudaGraph_t *graph) {
  cudaError_t e = (cudaStreamEndCapture)(stream, graph);
  if (state().capturing > 0) --state().capturing;
  return e;
}
#endif

}  // namespace host
}  // namespace hirace

// The same tracking for host-only sources (.cpp files compiled by the host compiler, which
// cannot include this header): hirace/host_hooks.h declares these; every CUDA source that
// includes this header defines them (weak: the linker keeps one).
extern "C" __attribute__((weak)) int hirace_host_allocate(int kind, const char *name, const char *file, unsigned line,
                                                         void **where, size_t size, unsigned flags) {
  return int(hirace::host::allocate(kind, name, file, line, where, size, flags));
}
extern "C" __attribute__((weak)) int hirace_host_release(int kind, void *p) {
  return int(hirace::host::release(kind, p));
}
#if !defined(CUDAEMU)
extern "C" __attribute__((weak)) int hirace_host_begin_capture(void *stream, int mode) {
  return int(hirace::host::begin_capture(cudaStream_t(stream), cudaStreamCaptureMode(mode)));
}
extern "C" __attribute__((weak)) int hirace_host_end_capture(void *stream, void *graph) {
  return int(hirace::host::end_capture(cudaStream_t(stream), (cudaGraph_t *)graph));
}
#endif

// Allocations are tracked where the program makes them, however they are written: inside a
// macro's argument (CHECK(cudaMalloc(&d, n))), in a helper, anywhere after this header. The
// macros replace only the call; a macro that stringizes its argument (#call) still shows the
// program's own text, since # works on the argument as written.
#undef HIRACE_HOOKS
#define HIRACE_HOOKS ::hirace::host
#include "alloc_hooks.h"

// Below, the runtime's own memory (ranges, clocks, shared shadow, race log) is allocated through
// the API's parenthesized names, `(cudaMalloc)(...)`, which the macros above leave alone: it is
// not the program's, so it is neither checked nor counted as the program's memory.
namespace hirace {
namespace host {

struct SymbolRegistrar {
  SymbolRegistrar(void *(*address)(), size_t size, const char *name, const char *file = "", unsigned line = 0) {
    state().symbols.push_back(Symbol{address, size, name, -1, file, line});
  }
};

struct TuRegistrar {
  explicit TuRegistrar(void (*setter)(const LaunchState &, bool)) { state().tus.push_back(setter); }
};

#if defined(CUDAEMU)
// the cpu backend runs a block in one of its slots: a block starting there gets a fresh slice
inline void reset_cpu_shared_shadow() {
  State &s = state();
  size_t words = size_t(s.shared_slice_words), slot = ::cudaemu::detail::g_slot;
  if (s.d_shared) std::memset(s.d_shared + slot * words, 0, words * 8);
  if (s.d_shared_sites) std::memset(s.d_shared_sites + kSiteSlots * slot * words, 0xff, words * 4 * kSiteSlots);
}
#endif

// true: *p is new memory (not zeroed)
template <class T> inline bool grow(T **p, size_t *cap_bytes, size_t need_bytes, const char *what) {
  if (need_bytes <= *cap_bytes && *p) return false;
  tool_free(*p);
  *p = nullptr;
  size_t bytes = std::max(need_bytes, *cap_bytes * 2);
  void *q = try_tool_alloc(bytes);
  if (!q) q = tool_alloc(bytes = need_bytes, what);   // (doubling only saves later growth)
  *p = static_cast<T *>(q);
  *cap_bytes = bytes;
  return true;
}

inline bool kernel_selected(const char *name) {
  const std::string &k = state().kernels;
  return k.empty() || k.find(std::string(",") + name + ",") != std::string::npos;
}

// One launch at a time, also when several host threads launch: before_launch takes the lock and
// after_launch, on the same thread, releases it.
inline std::recursive_mutex &launch_mutex() {
  static std::recursive_mutex m;
  return m;
}

#if !defined(CUDAEMU)
inline int device_attribute(cudaDeviceAttr what, int fallback) {
  int dev = 0, v = 0;
  cudaGetDevice(&dev);
  if (cudaDeviceGetAttribute(&v, what, dev) != cudaSuccess) {
    cudaGetLastError();
    return fallback;
  }
  return v;
}

// The kernel's attributes, asked once per kernel (false: unknown, e.g. a deduced template's launch)
inline bool kernel_attributes(const void *kernel, cudaFuncAttributes *attr) {
  if (!kernel) return false;
  State &s = state();
  for (const auto &k : s.kernel_attrs)
    if (k.first == kernel) {
      *attr = k.second;
      return true;
    }
  if (cudaFuncGetAttributes(attr, kernel) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  s.kernel_attrs.push_back({kernel, *attr});
  return true;
}

// smem mode for a launch: the bytes of hirace's area after `shm` bytes of the program's, or 0 when it
// does not fit (then clocks and shared shadow stay in global memory). Beyond the default 48 KiB the
// kernel's limit is raised at every launch (the program may have set it in between).
// With `sites`, the window's prior-site slots go there too when they fit (*sites_in_area).
inline size_t shared_area_bytes(const void *kernel, const cudaFuncAttributes &attr, size_t area_offset,
                                unsigned long long tpb, unsigned long long program_words, bool sites,
                                bool *sites_in_area) {
  static const size_t optin = size_t(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, 48 * 1024));
  size_t area = size_t(8 * (tpb + program_words));
  *sites_in_area = sites && attr.sharedSizeBytes + area_offset + (area + 8) / 16 * 16 + 16 * program_words <= optin;
  if (*sites_in_area) area = (area + 8) / 16 * 16 + size_t(16 * program_words);   // (area_sites_word)
  size_t total = area_offset + area;
  if (attr.sharedSizeBytes + total > optin) return 0;
  if (attr.sharedSizeBytes + total > 48 * 1024 &&
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(total)) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return area;
}
#endif

// Every word of every shadow back to INIT: when the launch epochs' block numbering would overflow
inline void reset_shadows() {
  State &s = state();
  for (const Buffer &b : s.buffers)
    if (b.live && b.shadow) check_cuda(cudaMemset(b.shadow, 0, shadow_words(b.size) * 8), "shadow reset");
  if (s.d_shared) check_cuda(cudaMemset(s.d_shared, 0, s.d_shared_bytes), "shared-memory shadow reset");
}

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
      if (r.slot < launch_of.size()) s.races.push_back(LoggedRace{r, launch_of[r.slot]});
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
// freed (a process's end or a reset would free them anyway; a row host, instrument/row_host.py, whose
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

// The sites that ran as ranges of ids ("0-5,7,9-12"), for the log's sites record.
inline std::string ran_ranges(const std::vector<unsigned char> &seen) {
  std::string out;
  for (size_t i = 0; i < seen.size();) {
    if (!seen[i]) { ++i; continue; }
    size_t j = i;
    while (j + 1 < seen.size() && seen[j + 1]) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(i);
    if (j > i) out += '-' + std::to_string(j);
    i = j + 1;
  }
  return out;
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

// A launch's stream as the planner passes it: the legacy default stream orders the launch after
// every earlier launch and copy (not so where the program is built for per-thread default streams).
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
constexpr bool kLegacyDefaultStream = false;
#else
constexpr bool kLegacyDefaultStream = true;
#endif
template <class S> inline bool in_order_stream(const S &stream) {
  if constexpr (std::is_convertible<S, cudaStream_t>::value)
    return kLegacyDefaultStream && (static_cast<cudaStream_t>(stream) == nullptr ||
                                    static_cast<cudaStream_t>(stream) == cudaStreamLegacy);
  else
    return false;
}

// The next launch's argument values for its kernel's quiet candidates (read-only parameters, then
// own parameters: see runtime.h rd_param and rd_own), for the parameters it writes through and, where
// it has own candidates (bits in `own`), for all its pointer parameters, given by quiet_params just
// before before_launch.
struct QuietArgs {
  unsigned ncand = 0, nwritten = 0, npointers = 0, own = 0;
  bool known = false;   // every written (and pointer) argument is a known pointer
  const void *cand[kQuietParams];
  const void *written[32];
  const void *pointers[32];
};
inline QuietArgs &pending_quiet() {
  static thread_local QuietArgs q;
  return q;
}
struct ArgAddress {
  const void *p;
  bool known;
};
template <class T> inline ArgAddress arg_address(T *p) { return {(const void *)p, true}; }
template <class T> inline ArgAddress arg_address(const T &) { return {nullptr, false}; }
inline void quiet_params(std::initializer_list<ArgAddress> cand, std::initializer_list<ArgAddress> written,
                         std::initializer_list<ArgAddress> pointers = {}, unsigned own = 0) {
  QuietArgs q;
  q.known = written.size() <= 32 && pointers.size() <= 32;
  q.own = own;
  for (const ArgAddress &a : cand)
    if (q.ncand < kQuietParams) q.cand[q.ncand++] = a.known ? a.p : nullptr;
  for (const ArgAddress &a : written) {
    q.known = q.known && a.known;
    if (q.nwritten < 32) q.written[q.nwritten++] = a.p;
  }
  for (const ArgAddress &a : pointers) {
    q.known = q.known && a.known;
    if (q.npointers < 32) q.pointers[q.npointers++] = a.p;
  }
  pending_quiet() = q;
}
// The live buffer holding address p, or -1
inline int buffer_at(const void *p) {
  State &s = state();
  unsigned long long a = (unsigned long long)p;
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const Buffer &b = s.buffers[i];
    if (b.live && b.shadow && a >= (unsigned long long)b.base && a < (unsigned long long)b.base + b.size) return int(i);
  }
  return -1;
}
// The launch state's quiet_params mask and bounds from the argument values quiet_params gave (none
// given: no parameter is quiet), which are then forgotten. A read-only candidate is quiet where no
// written argument points into its buffer; an own candidate where no other pointer argument does.
inline void take_quiet_args(LaunchState &L) {
  State &s = state();
  const QuietArgs quiet = pending_quiet();
  pending_quiet() = QuietArgs{};
  if (!quiet.known) return;
  int written[32], pointers[32];   // the buffers the written (and all pointer) arguments point into
  for (unsigned j = 0; j < quiet.nwritten; ++j) written[j] = quiet.written[j] ? buffer_at(quiet.written[j]) : -1;
  for (unsigned j = 0; j < quiet.npointers; ++j) pointers[j] = quiet.pointers[j] ? buffer_at(quiet.pointers[j]) : -1;
  for (unsigned i = 0; i < quiet.ncand; ++i) {
    int b = quiet.cand[i] ? buffer_at(quiet.cand[i]) : -1;
    bool shared = b < 0;
    if (quiet.own >> i & 1u) {
      unsigned holders = 0;   // the candidate itself is one of the pointer arguments
      for (unsigned j = 0; j < quiet.npointers; ++j) holders += pointers[j] == b;
      shared = shared || holders != 1;
    } else {
      for (unsigned j = 0; j < quiet.nwritten && !shared; ++j) shared = written[j] == b;
    }
    if (shared) continue;
    L.quiet_params |= 1u << i;
    L.quiet_lo[i] = (unsigned long long)s.buffers[b].base;
    L.quiet_hi[i] = L.quiet_lo[i] + s.buffers[b].size;
  }
}

// A kernel with a quiet version (runtime.h, namespace q): `ok`, the host's test of its sites' launch
// conditions for the next launch, and `need`, the quiet candidates its sites need quiet; given just
// before before_launch, which chooses the version (quiet_chosen) and forgets them.
struct QuietVersion {
  bool offered = false, ok = false;
  unsigned need = 0;
};
inline QuietVersion &pending_version() {
  static thread_local QuietVersion v;
  return v;
}
inline void quiet_version(bool ok, unsigned need) { pending_version() = QuietVersion{true, ok, need}; }
// Does the launch between before_launch and after_launch run the quiet version?
inline bool quiet_chosen() { return state().quiet_chosen; }
// (the host's test of own_index: runtime.h)
inline bool own_index(dim3 block, dim3 grid, long long c_tx, long long c_ty, long long c_tz, long long c_bx,
                      long long c_by, long long c_bz, long long) {
  return own_index_of(block, grid, c_tx, c_ty, c_tz, c_bx, c_by, c_bz);
}

// `area_ok`: the kernel starts with block_entry and the launch asks for launch_shared_bytes(), so
// hirace may keep the block's clocks and shared shadow in its dynamic shared memory.
// `in_order`: the launch is on the legacy default stream, which runs it after every earlier launch
// and copy: its state is then copied without waiting, and the launch is not waited for; the log
// is read back when a launch noted something, when kPendingLaunches launches are pending, before
// a launch on another stream, a buffer's release or a device reset, and at exit. A launch on another
// stream (or one whose stream the launch does not name plainly) waits for all before and is waited for.
inline void before_launch(const void *kernel, const char *name, dim3 grid, dim3 block, size_t shm,
                          bool area_ok = false, bool in_order = false) {
  launch_mutex().lock();
  if (state().capturing > 0) {   // recorded into a graph, not run now (see begin_capture)
    state().captured_now = true;
    ++state().captured_launches;
    return;
  }
  init();
  State &s = state();
  int device = 0;
  cudaGetDevice(&device);
  set_unit_bases(device);
  if (!in_order || s.pending.size() >= kPendingLaunches || (s.h_noted && *(volatile unsigned *)s.h_noted) ||
      device != s.pending_device)
    drain();
  s.pending_device = device;
  for (Symbol &sym : s.symbols)
    if (sym.buffer < 0) sym.buffer = add_buffer(sym.address(), sym.size, sym.name, 0, sym.file, sym.line);
  bool enabled = kernel_selected(name);
  LaunchState quiet{};
  take_quiet_args(quiet);   // this launch's quiet parameters, if its arguments were given
  const QuietVersion version = pending_version();
  pending_version() = QuietVersion{};
  s.quiet_chosen = s.quiet_versions && version.offered && version.ok && enabled && (quiet.quiet_params & version.need) == version.need &&
                   s.bid_lo == 0 && s.bid_hi == ~0u && s.tid_lo == 0 && s.tid_hi == ~0u;
  if (s.quiet_chosen) area_ok = false;   // (the quiet version keeps no clocks nor shadow)
  unsigned long long tpb = 1ull * block.x * block.y * block.z;
  unsigned long long blocks = 1ull * grid.x * grid.y * grid.z;
  // a launch boundary orders everything before it: this launch's blocks are numbered past every
  // earlier one's, so the words they wrote read as INIT (see ThreadCtx::base)
  if (s.block_base + blocks > (1ull << ShadowWord::kBidBits)) {
    reset_shadows();
    s.block_base = 0;
  }
  size_t area = 0, area_offset = (shm + 15) / 16 * 16;   // hirace's area follows the program's
  bool sites_in_area = false;   // smem mode: the shared window's site slots are in the area
  unsigned long long floor = 0;
#if defined(CUDAEMU)
  (void)kernel;
  (void)area_ok;
  unsigned long long window = ::cudaemu::detail::kSharedWindow;
  unsigned long long slices = ::cudaemu::detail::kMaxLiveBlocks;   // one per slot (reset as a block starts)
  ::cudaemu::detail::g_block_start_hook = &reset_cpu_shared_shadow;
  s.shared_slice_words = shadow_words(window);
#else
  // shared addresses count from the window's start, which holds the reserved
  // system area (1 KiB on sm_80 and later) before the kernel's own variables
  static const unsigned long long reserved = (unsigned long long)device_attribute(cudaDevAttrReservedSharedMemoryPerBlock, 1024);
  cudaFuncAttributes attr;
  bool known = kernel_attributes(kernel, &attr);
  // the program's dynamic shared memory follows its static variables at an aligned offset
  unsigned long long statics = known ? (attr.sharedSizeBytes + 127) / 128 * 128 : 48 * 1024;
  unsigned long long slices = blocks;
  if (enabled && area_ok && known)
    area = shared_area_bytes(kernel, attr, area_offset, tpb, shadow_words(statics + shm),
                             s.prior_sites && !s.sites_evicted && blocks < kSiteBlocks, &sites_in_area);
  if (area) {
    floor = reserved;
    s.shared_slice_words = shadow_words(statics + shm);
    slices = 0;
  } else {
    s.shared_slice_words = shadow_words(reserved + shm + statics);
  }
#endif
  s.launch_extra = area ? area_offset + area - shm : 0;
  if (!area && !s.quiet_chosen) {   // clocks per thread and shared shadow per block, in global memory
    size_t clock_bytes = size_t(2 * 4 * tpb * blocks);
    grow(&s.d_clocks, &s.d_clocks_bytes, clock_bytes, "barrier clocks");
    check_cuda(cudaMemset(s.d_clocks, 0, clock_bytes), "barrier clock reset");
    size_t shared_bytes = std::max<size_t>(size_t(s.shared_slice_words * slices * 8), 8);
    if (grow(&s.d_shared, &s.d_shared_bytes, shared_bytes, "shared-memory shadow"))
      check_cuda(cudaMemset(s.d_shared, 0, s.d_shared_bytes), "shared-memory shadow reset");
  }
  // (a grid of 4M blocks or more names one access; sites given up for room name none)
  bool sites = s.prior_sites && !s.sites_evicted && blocks < kSiteBlocks && !s.quiet_chosen;
  if (sites) {   // the slots are numbered by launch as the shadow is: cleared only when the numbering is full
    if (s.site_base + blocks > kSiteBlocks) {
      for (const Buffer &b : s.buffers)
        if (b.live && b.sites) check_cuda(cudaMemset(b.sites, 0xff, shadow_words(b.size) * 4 * kSiteSlots), "site shadow reset");
      if (s.d_shared_sites) check_cuda(cudaMemset(s.d_shared_sites, 0xff, s.d_shared_sites_bytes), "site shadow reset");
      s.site_base = 0;
    }
#if defined(CUDAEMU)
    unsigned long long site_slices = slices;
#else
    unsigned long long site_slices = sites_in_area ? 0 : blocks;
#endif
    size_t site_bytes = std::max<size_t>(size_t(s.shared_slice_words * site_slices), 2) * 4 * kSiteSlots;
    if (site_bytes > s.d_shared_sites_bytes || !s.d_shared_sites) {
      tool_free(s.d_shared_sites);
      s.d_shared_sites = site_slots(site_bytes);
      s.d_shared_sites_bytes = s.d_shared_sites ? site_bytes : 0;
    }
  }
  if (!s.d_log) {
    s.log_entries = 2;
    while (s.log_entries < 2ull * s.log_cap && s.log_entries < (1u << 31)) s.log_entries *= 2;
    s.d_log = static_cast<LogEntry<RaceRecord> *>(tool_alloc(s.log_entries * sizeof(LogEntry<RaceRecord>), "race log"));
    s.d_mem_log = static_cast<LogEntry<MemRecord> *>(tool_alloc(s.log_entries * sizeof(LogEntry<MemRecord>), "memory error log"));
    check_cuda(cudaMemset(s.d_log, 0, s.log_entries * sizeof(LogEntry<RaceRecord>)), "race log reset");
    check_cuda(cudaMemset(s.d_mem_log, 0, s.log_entries * sizeof(LogEntry<MemRecord>)), "memory error log reset");
    s.d_counts = static_cast<unsigned *>(tool_alloc(kCounts * sizeof(unsigned), "race log"));
    s.d_sinks = tool_alloc(2 * kSinkBytes, "out-of-bounds sink");
    check_cuda(cudaMemset(s.d_counts, 0, kCounts * sizeof(unsigned)), "race log reset");
    check_cuda(cudaMemset(s.d_sinks, 0, kSinkBytes), "out-of-bounds sink reset");
  }
  const size_t site_count = std::max<size_t>(HIRACE_SITE_COUNT, units().next);
  if (site_count > s.ran_cap) {   // (more sites than the array holds: the first launch, or units loaded since)
    if (!s.pending.empty()) drain();
    fold_ran(s);
    if (s.d_ran) tool_free(s.d_ran);
    s.d_ran = static_cast<unsigned char *>(tool_alloc(site_count, "the sites that ran"));
    check_cuda(cudaMemset(s.d_ran, 0, site_count), "sites that ran reset");
    s.ran_cap = site_count;
  }
  if (!s.drain_registered) {   // once the CUDA runtime is set up: its own end comes after this hook
    s.drain_registered = true;
    ::cctk::host::at_end(drain_at_exit, /*on_fault=*/false);
  }
  if (!s.h_noted) {
    check_cuda((cudaHostAlloc)(reinterpret_cast<void **>(&s.h_noted), 64, cudaHostAllocMapped), "launch flag allocation");
    check_cuda(cudaHostGetDevicePointer(reinterpret_cast<void **>(&s.d_noted), s.h_noted, 0), "launch flag mapping");
    *s.h_noted = 0;
    check_cuda((cudaHostAlloc)(reinterpret_cast<void **>(&s.h_off), sizeof(LaunchState), cudaHostAllocDefault),
               "launch state allocation");
    *s.h_off = LaunchState{};
    check_cuda((cudaHostAlloc)(reinterpret_cast<void **>(&s.h_states), kPendingLaunches * sizeof(LaunchState),
                               cudaHostAllocDefault), "launch state allocation");
  }
  if (s.table_generation != s.generation) {   // a buffer or hirace's memory came or went
    size_t nbuffers = 0;
    for (const Buffer &b : s.buffers) nbuffers += b.live && b.shadow;
    size_t cap = s.d_ranges_cap * sizeof(Range);   // (a new table is itself hirace's memory: listed below)
    grow(&s.d_ranges, &cap, (nbuffers + s.tool_memory.size() + 8) * sizeof(Range), "range table");
    s.d_ranges_cap = cap / sizeof(Range);
    std::vector<Range> ranges;
    for (size_t i = 0; i < s.buffers.size(); ++i) {
      const Buffer &b = s.buffers[i];
      if (b.live && b.shadow)
        ranges.push_back(Range{(unsigned long long)b.base, b.size, b.redzone, b.shadow, b.sites, unsigned(i), kUserBuffer});
    }
    // hirace's own memory is in the table too: an access of the program there is out of bounds
    for (const auto &t : s.tool_memory)
      if (t.first != s.d_sinks) ranges.push_back(Range{(unsigned long long)t.first, t.second, 0, nullptr, nullptr, kNoBuffer, kToolMemory});
    std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) { return a.base < b.base; });
    if (!ranges.empty())
      check_cuda(cudaMemcpy(s.d_ranges, ranges.data(), ranges.size() * sizeof(Range), cudaMemcpyHostToDevice),
                 "range table copy");
    s.nranges = unsigned(ranges.size());
    s.table_generation = s.generation;
    size_t user = 0, tool = 0;
    for (const auto &t : s.tool_memory) tool += t.second;
    for (const Buffer &b : s.buffers)
      if (b.live) {
        user += b.size;
        tool += 2 * b.redzone;
      }
    if (user + tool > s.user_bytes_peak + s.tool_bytes_peak) {
      s.user_bytes_peak = user;
      s.tool_bytes_peak = tool;
    }
  }
  sites = sites && !s.sites_evicted;   // (an allocation above may have given them up for room)
  LaunchState L{};
  L.enabled = enabled ? 1u : 0u;
  L.granularity_shift = kShift;
  L.prior_sites = sites ? 1u : 0u;
  L.threads_per_block = unsigned(tpb);
  L.ranges = s.d_ranges;
  L.nranges = s.nranges;
  L.shared_shadow = s.d_shared;
  L.shared_sites = s.d_shared_sites;
  L.shared_slice_words = s.shared_slice_words;
  L.clocks = s.d_clocks;
  const unsigned slot = unsigned(s.pending.size());
  L.slot = slot;
  L.log = s.d_log;
  L.log_count = s.d_counts + kRaceCount;
  L.dropped = s.d_counts + dropped_count(slot);
  L.log_cap = s.log_cap;
  L.log_mask = s.log_entries - 1;
  L.wrapped = s.d_counts + wrapped_count(slot);
  L.noted = s.d_noted;
  L.bid_lo = s.bid_lo;
  L.bid_hi = s.bid_hi;
  L.tid_lo = s.tid_lo;
  L.tid_hi = s.tid_hi;
  L.mem_log = s.d_mem_log;
  L.mem_count = s.d_counts + kMemCount;
  L.mem_dropped = s.d_counts + mem_dropped_count(slot);
  L.dynamic_shared = shm;
  L.bounds = s.bounds ? 1u : 0u;
  L.sink_read = s.d_sinks;
  L.sink_write = static_cast<char *>(s.d_sinks) + kSinkBytes;
  L.ran = s.d_ran;
  L.block_base = unsigned(s.block_base);
  L.site_base = unsigned(s.site_base);
  L.smem = area ? 1u : 0u;
  L.smem_sites = area && sites_in_area && sites ? 1u : 0u;
  L.area_offset = area_offset;
  L.shared_floor = floor;
  L.quiet_params = quiet.quiet_params;
  std::copy(quiet.quiet_lo, quiet.quiet_lo + kQuietParams, L.quiet_lo);
  std::copy(quiet.quiet_hi, quiet.quiet_hi + kQuietParams, L.quiet_hi);
  s.block_base += blocks;
  if (sites) s.site_base += blocks;
  s.h_states[slot] = L;   // pinned, kept until the launch is read back: the source of an asynchronous copy
  static bool copied_once = false;   // (HIRACE_BENCH_CUT 6, benchmarks only: copied at the first launch only)
  if (HIRACE_BENCH_CUT != 6 || !copied_once)
    for (auto setter : s.tus) setter(s.h_states[slot], in_order);
  copied_once = true;
  s.pending.push_back(unsigned(s.launches.size()));
  s.last_in_order = in_order;
  s.launches.push_back(LaunchInfo{name, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, 0, 0, 0,
                                      unsigned(s.quiet_chosen)});
}

// A launch through the runtime API (cudaLaunchKernel, cudaLaunchCooperativeKernel: hirace/planner.py),
// bracketed as `(before_launch(...), launched(cudaLaunchKernel(...)))`: its status, after after_launch.
inline void after_launch();
inline cudaError_t launched(cudaError_t status) {
  after_launch();
  return status;
}

// The dynamic shared memory the launch asks for: the program's, plus hirace's area in smem mode.
inline size_t launch_shared_bytes(size_t program_bytes) { return program_bytes + state().launch_extra; }

inline void after_launch() {
  State &s = state();
  std::unique_lock<std::recursive_mutex> hold(launch_mutex(), std::adopt_lock);   // taken by before_launch
  if (s.captured_now) {
    s.captured_now = false;
    return;
  }
  cudaError_t launched = cudaPeekAtLastError();
  if (launched == cudaErrorInvalidConfiguration || launched == cudaErrorInvalidValue ||
      launched == cudaErrorInvalidDeviceFunction || launched == cudaErrorNoKernelImageForDevice)
    s.launches.back().failed = 1;   // (not counted as checked: the report says how many failed)
  if (launched == cudaErrorLaunchOutOfResources) {
    std::fprintf(stderr, "hirace: kernel '%s' could not be launched under hirace: %s (the instrumented kernel "
                 "needs more resources than the device has for %u x %u x %u threads per block)\n",
                 s.launches.back().kernel.c_str(), cudaGetErrorString(launched), s.launches.back().block[0],
                 s.launches.back().block[1], s.launches.back().block[2]);
    std::fflush(stderr);
    std::_Exit(::cctk::exit_code::kExitRuntimeFailure);
  }
  if (!s.last_in_order) drain();   // a launch on another stream: waited for (see before_launch)
  // kernels launched outside hirace's brackets check nothing (the copy need not be waited for: the
  // next launch's state is copied after it, in order). Not where the planner found that the
  // program runs its instrumented code in bracketed launches only (HIRACE_BRACKETED_ONLY): the
  // next launch copies its own state, and this copy would double a small launch's cost.
  if (!HIRACE_BRACKETED_ONLY && HIRACE_BENCH_CUT != 5 && HIRACE_BENCH_CUT != 6)
    for (auto setter : s.tus) setter(*s.h_off, true);
}

inline void write_log() {
  State &s = state();
  if (s.log_path.empty() && s.log_dir.empty() && !units().list.empty()) {
    // a program built through hirace-cc that no tool runs: it reports by itself
    // (a forked child reports what it found itself: its parent reports the rest)
    report_by_itself(std::vector<LoggedRace>(s.races.begin() + s.parents_races, s.races.end()),
                     std::vector<LoggedMem>(s.mem_errors.begin() + s.parents_mems, s.mem_errors.end()),
                     s.launches, s.buffers);
    return;
  }
  // (the name in HIRACE_LOG_DIR is chosen now: a forked child writes a log of its own, there or in
  // HIRACE_LOG's directory; the tool reads them all)
  std::string path = s.log_path;
  if (path.empty() && !s.log_dir.empty()) path = log_in_dir(s.log_dir.c_str());
  else if (long(getpid()) != s.pid) {
    size_t slash = path.rfind('/');
    path = log_in_dir(slash == std::string::npos ? "." : path.substr(0, slash).c_str());
  }
  ::cctk::host::LogFile log(path);
  if (!log) return;
  std::FILE *f = log.get();
  namespace rec = ::cctk::hirace_log;   // record writers generated from instrument/protocol.py
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const Buffer &b = s.buffers[i];
    rec::write_buffer(f, i, b.name.c_str(), b.size, b.file.c_str(), b.line);
  }
  for (size_t i = s.parents_launches; i < s.launches.size(); ++i) {
    const LaunchInfo &l = s.launches[i];
    rec::write_launch(f, i, l.kernel.c_str(), l.grid, l.block, l.dropped, l.wrapped, l.mem_dropped, l.quiet,
                      l.failed);
  }
  for (size_t i = s.parents_races; i < s.races.size(); ++i) {
    const LoggedRace &x = s.races[i];
    const RaceRecord &r = x.r;
    rec::write_race(f, x.launch, r.site, r.prior_site == ~0u ? -1 : int(r.prior_site), r.tid, r.bid, r.prior_tid,
                    r.prior_bid, r.prior_state, r.access, r.space, r.buffer, r.offset, r.count);
  }
  for (size_t i = s.parents_mems; i < s.mem_errors.size(); ++i) {
    const LoggedMem &x = s.mem_errors[i];
    const MemRecord &r = x.r;
    rec::write_memory_error(f, x.launch, r.site, r.tid, r.bid, r.access, r.space,
                            r.buffer == kNoBuffer ? -1 : int(r.buffer), r.offset, r.limit, r.size, r.count);
  }
  fold_ran(s);
  if (s.records_ran) {   // (a build that does not note them says nothing of which sites ran)
    std::vector<unsigned char> seen = s.ran_seen;
    seen.resize(std::max<size_t>({seen.size(), size_t(HIRACE_SITE_COUNT), size_t(units().next)}), 0);
    rec::write_sites(f, unsigned(seen.size()), ran_ranges(seen).c_str());
  }
  if (!units().list.empty()) write_unit_records(f);
  rec::write_end(f, 1u << kShift, s.user_bytes_peak, s.tool_bytes_peak, s.sites_evicted);
}

}  // namespace host

// Each translation unit that includes this header registers its own copy of
// g_launch, so a launch reaches kernels defined in any file.
namespace {
inline void hirace_set_this_tu(const LaunchState &s, bool without_waiting) {
  if (without_waiting)   // from pinned memory, on the default stream
    host::check_cuda(cudaMemcpyToSymbolAsync(g_launch, &s, sizeof s, 0, cudaMemcpyHostToDevice, 0), "launch state copy");
  else
    host::check_cuda(cudaMemcpyToSymbol(g_launch, &s, sizeof s), "launch state copy");
}
static host::TuRegistrar hirace_tu_registrar(&hirace_set_this_tu);
#if HIRACE_UNITS
// a unit built by hirace-cc: its first site id, here and in its device code (units.h)
unsigned hirace_unit_base_h = 0;
#if defined(CUDAEMU)
inline void hirace_set_unit_base() {}
#else
__constant__ unsigned hirace_unit_base_d;
inline void hirace_set_unit_base() {
  host::check_cuda(cudaMemcpyToSymbol(hirace_unit_base_d, &hirace_unit_base_h, sizeof hirace_unit_base_h),
                   "unit site base copy");
}
#endif
// a check's site id: the unit's first id plus the site's own (hirace/planner.py, unit_mode)
CCTK_HD inline unsigned unit_site(unsigned n) {
#if defined(__CUDA_ARCH__)
  return n + hirace_unit_base_d;
#else
  return n + hirace_unit_base_h;
#endif
}
// the unit's site table, registered at the end of its main file
inline unsigned register_this_unit(const host::SiteInfo *sites, unsigned count) {
#if defined(CUDAEMU)
  hirace_unit_base_h = host::register_unit(sites, count, nullptr, HIRACE_GRANULARITY_SHIFT);
#else
  hirace_unit_base_h = host::register_unit(sites, count, &hirace_set_unit_base, HIRACE_GRANULARITY_SHIFT);
#endif
  return hirace_unit_base_h;
}
#endif
// the log is written at exit also when the program launches no kernel (then it lists none)
static const bool hirace_started = (host::init(), host::state().records_ran |= HIRACE_SITES_RAN, true);
}  // namespace

}  // namespace hirace

#endif  // HIRACE_HOST_H
