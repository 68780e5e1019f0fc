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
#include <string>
#include <mutex>
#include <vector>

#include "runtime.h"

#ifndef HIRACE_GRANULARITY_SHIFT
#define HIRACE_GRANULARITY_SHIFT 2
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
};

struct Symbol {
  void *(*address)();
  size_t size;
  const char *name;
  int buffer;  // index into buffers once resolved, else -1
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
};

struct State {
  bool init = false, prior_sites = false, enabled = true;
  std::string log_path, kernels;
  unsigned log_cap = 1024;
  unsigned bid_lo = 0, bid_hi = ~0u, tid_lo = 0, tid_hi = ~0u;
  std::vector<Buffer> buffers;
  std::vector<Symbol> symbols;
  std::vector<void (*)(const LaunchState &)> tus;
  std::vector<LoggedRace> races;
  std::vector<LaunchInfo> launches;
  // device-side scratch, reused across launches
  Range *d_ranges = nullptr;
  size_t d_ranges_cap = 0;
  unsigned *d_clocks = nullptr;
  size_t d_clocks_bytes = 0;
  unsigned long long *d_shared = nullptr;
  unsigned *d_shared_sites = nullptr;
  size_t d_shared_bytes = 0;
  RaceRecord *d_log = nullptr;
  unsigned *d_counts = nullptr;  // [0] records, [1] dropped
  unsigned long long shared_slice_words = 0;
  size_t user_bytes_peak = 0, tool_bytes_peak = 0;  // measured at each launch
};

inline State &state() {
  static State s;
  return s;
}

inline void write_log();

inline void init() {
  State &s = state();
  if (s.init) return;
  s.init = true;
  using ::cctk::host::option;
  if (const char *p = option(::cctk::env::kHiraceLog)) s.log_path = p;
  if (const char *p = option(::cctk::env::kHiraceKernels)) s.kernels = std::string(",") + p + ",";
  if (const char *p = option(::cctk::env::kHiraceMaxReports)) s.log_cap = unsigned(std::max(1, std::atoi(p)));
  if (const char *p = option(::cctk::env::kHiracePriorSites)) s.prior_sites = *p == '1';
  if (const char *p = option(::cctk::env::kHiraceBlocks)) std::sscanf(p, "%u:%u", &s.bid_lo, &s.bid_hi);
  if (const char *p = option(::cctk::env::kHiraceThreads)) std::sscanf(p, "%u:%u", &s.tid_lo, &s.tid_hi);
  // a run the cpu backend stops has no log: the tool reports the fault instead
  ::cctk::host::at_end(write_log, /*on_fault=*/false);
}

inline void check_cuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess) ::cctk::host::fail("hirace", what, e);
}

constexpr unsigned kShift = HIRACE_GRANULARITY_SHIFT;

inline size_t shadow_words(size_t bytes) { return (bytes + (1u << kShift) - 1) >> kShift; }

inline int add_buffer(void *base, size_t size, const char *name) {
  State &s = state();
  Buffer b{base, size, nullptr, nullptr, name ? name : "?", true};
  size_t words = shadow_words(size);
  if (words) {
    check_cuda(cudaMalloc(reinterpret_cast<void **>(&b.shadow), words * 8), "shadow allocation");
    check_cuda(cudaMemset(b.shadow, 0, words * 8), "shadow reset");
    if (s.prior_sites) {
      check_cuda(cudaMalloc(reinterpret_cast<void **>(&b.sites), words * 4), "site shadow allocation");
      check_cuda(cudaMemset(b.sites, 0xff, words * 4), "site shadow reset");
    }
  }
  s.buffers.push_back(b);
  return int(s.buffers.size() - 1);
}

// `cudaMalloc(&d, n)` becomes `track_alloc(cudaMalloc(&d, n), (void **)(&d), n, "d")`;
// the pointer is read here, after the allocation has set it.
inline std::recursive_mutex &launch_mutex();
inline cudaError_t track_alloc(cudaError_t e, void **where, size_t size, const char *name) {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  init();
  if (e == cudaSuccess && where && *where) add_buffer(*where, size, name);
  return e;
}

// `cudaFree(p)` becomes `(before_free(p), cudaFree(p))`.
inline void before_free(const void *p) {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  for (Buffer &b : state().buffers)
    if (b.live && b.base == p) {
      b.live = false;
      cudaFree(b.shadow);
      if (b.sites) cudaFree(b.sites);
      b.shadow = nullptr;
      b.sites = nullptr;
    }
}

}  // namespace host
}  // namespace hirace

// The same tracking for host-only sources (.cpp files compiled by the host compiler, which
// cannot include this header): hirace/host_hooks.h declares these; every CUDA source that
// includes this header defines them (weak: the linker keeps one).
extern "C" __attribute__((weak)) void hirace_host_track_alloc(int err, void **where, size_t size, const char *name) {
  hirace::host::track_alloc(cudaError_t(err), where, size, name);
}
extern "C" __attribute__((weak)) void hirace_host_before_free(const void *p) { hirace::host::before_free(p); }

// Allocations are tracked where the program makes them, however they are written: inside a
// macro's argument (CHECK(cudaMalloc(&d, n))), in a helper, anywhere after this header. The
// macros replace only the call; a macro that stringizes its argument (#call) still shows the
// program's own text, since # works on the argument as written.
#include "alloc_hooks.h"
#define cudaMalloc(p, ...) HIRACE_TRACK_V(::hirace::host, cudaMalloc, p, __VA_ARGS__)
#define cudaMallocManaged(p, ...) HIRACE_TRACK_V(::hirace::host, cudaMallocManaged, p, __VA_ARGS__)
#define cudaMallocHost(p, ...) HIRACE_TRACK_V(::hirace::host, cudaMallocHost, p, __VA_ARGS__)
#define cudaHostAlloc(p, ...) HIRACE_TRACK_V(::hirace::host, cudaHostAlloc, p, __VA_ARGS__)
#define cudaFree(p) (::hirace::host::before_free((const void *)(p)), ::cudaFree(p))

// Below, the runtime's own memory (ranges, clocks, shared shadow, race log) is allocated through
// the API's parenthesized names, `(cudaMalloc)(...)`, which the macros above leave alone: it is
// not the program's, so it is neither checked nor counted as the program's memory.
namespace hirace {
namespace host {

struct SymbolRegistrar {
  SymbolRegistrar(void *(*address)(), size_t size, const char *name) {
    state().symbols.push_back(Symbol{address, size, name, -1});
  }
};

struct TuRegistrar {
  explicit TuRegistrar(void (*setter)(const LaunchState &)) { state().tus.push_back(setter); }
};

#if defined(CUDAEMU)
// the cpu backend runs a block in one of its slots: a block starting there gets a fresh slice
inline void reset_cpu_shared_shadow() {
  State &s = state();
  size_t words = size_t(s.shared_slice_words), slot = ::cudaemu::detail::g_slot;
  if (s.d_shared) std::memset(s.d_shared + slot * words, 0, words * 8);
  if (s.d_shared_sites) std::memset(s.d_shared_sites + slot * words, 0xff, words * 4);
}
#endif

template <class T> inline void grow(T **p, size_t *cap_bytes, size_t need_bytes, const char *what) {
  if (need_bytes <= *cap_bytes) return;
  if (*p) (cudaFree)(*p);
  size_t bytes = std::max(need_bytes, *cap_bytes * 2);
  check_cuda((cudaMalloc)(reinterpret_cast<void **>(p), bytes), what);
  *cap_bytes = bytes;
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

inline void before_launch(const void *kernel, const char *name, dim3 grid, dim3 block, size_t shm) {
  launch_mutex().lock();
  init();
  State &s = state();
  for (Symbol &sym : s.symbols)
    if (sym.buffer < 0) sym.buffer = add_buffer(sym.address(), sym.size, sym.name);
  std::vector<Range> ranges;
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const Buffer &b = s.buffers[i];
    if (b.live && b.shadow) ranges.push_back(Range{(unsigned long long)b.base, b.size, b.shadow, b.sites, unsigned(i)});
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) { return a.base < b.base; });
  // a launch boundary orders everything before it: every word starts afresh
  for (const Range &r : ranges) {
    check_cuda(cudaMemset(r.shadow, 0, shadow_words(r.size) * 8), "shadow reset");
    if (r.sites) check_cuda(cudaMemset(r.sites, 0xff, shadow_words(r.size) * 4), "site shadow reset");
  }
  size_t cap = s.d_ranges_cap * sizeof(Range);
  grow(&s.d_ranges, &cap, std::max<size_t>(1, ranges.size()) * sizeof(Range), "range table");
  s.d_ranges_cap = cap / sizeof(Range);
  if (!ranges.empty())
    check_cuda(cudaMemcpy(s.d_ranges, ranges.data(), ranges.size() * sizeof(Range), cudaMemcpyHostToDevice),
               "range table copy");
  unsigned long long tpb = 1ull * block.x * block.y * block.z;
  unsigned long long blocks = 1ull * grid.x * grid.y * grid.z;
  size_t clock_bytes = size_t(2 * 4 * tpb * blocks);
  grow(&s.d_clocks, &s.d_clocks_bytes, clock_bytes, "barrier clocks");
  check_cuda(cudaMemset(s.d_clocks, 0, clock_bytes), "barrier clock reset");
#if defined(CUDAEMU)
  (void)kernel;
  unsigned long long window = ::cudaemu::detail::kSharedWindow;
  unsigned long long slices = ::cudaemu::detail::kMaxLiveBlocks;   // one per slot (reset as a block starts)
  ::cudaemu::detail::g_block_start_hook = &reset_cpu_shared_shadow;
#else
  // shared addresses count from the window's start, which holds the reserved
  // system area (1 KiB on sm_80 and later) before the kernel's own variables
  int dev = 0, reserved = 0;
  cudaGetDevice(&dev);
  if (cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev) != cudaSuccess) {
    cudaGetLastError();
    reserved = 1024;
  }
  unsigned long long window = reserved + shm + 48 * 1024;
  if (kernel) {
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, kernel) == cudaSuccess) window = reserved + shm + attr.sharedSizeBytes;
    else cudaGetLastError();
  }
  unsigned long long slices = blocks;
#endif
  s.shared_slice_words = shadow_words(window);
  size_t shared_bytes = size_t(s.shared_slice_words * slices * 8);
  size_t old_bytes = s.d_shared_bytes;
  grow(&s.d_shared, &s.d_shared_bytes, std::max<size_t>(shared_bytes, 8), "shared-memory shadow");
  if (s.prior_sites) {
    if (old_bytes != s.d_shared_bytes || !s.d_shared_sites) {
      if (s.d_shared_sites) (cudaFree)(s.d_shared_sites);
      check_cuda((cudaMalloc)(reinterpret_cast<void **>(&s.d_shared_sites), s.d_shared_bytes / 2), "site shadow");
    }
#if !defined(CUDAEMU)
    check_cuda(cudaMemset(s.d_shared_sites, 0xff, s.d_shared_bytes / 2), "site shadow reset");
#endif
  }
#if !defined(CUDAEMU)
  check_cuda(cudaMemset(s.d_shared, 0, s.d_shared_bytes), "shared-memory shadow reset");
#endif
  if (!s.d_log) {
    check_cuda((cudaMalloc)(reinterpret_cast<void **>(&s.d_log), s.log_cap * sizeof(RaceRecord)), "race log");
    check_cuda((cudaMalloc)(reinterpret_cast<void **>(&s.d_counts), 3 * sizeof(unsigned)), "race log");
  }
  check_cuda(cudaMemset(s.d_counts, 0, 3 * sizeof(unsigned)), "race log reset");
  size_t user = 0, tool = s.d_clocks_bytes + s.d_shared_bytes * (s.prior_sites ? 3 : 2) / 2 +
                             s.d_ranges_cap * sizeof(Range) + s.log_cap * sizeof(RaceRecord);
  for (const Buffer &b : s.buffers)
    if (b.live) {
      user += b.size;
      tool += shadow_words(b.size) * (s.prior_sites ? 12 : 8);
    }
  if (user + tool > s.user_bytes_peak + s.tool_bytes_peak) {
    s.user_bytes_peak = user;
    s.tool_bytes_peak = tool;
  }
  LaunchState L{kernel_selected(name) ? 1u : 0u, kShift, s.prior_sites ? 1u : 0u, unsigned(tpb),
                s.d_ranges, unsigned(ranges.size()), s.d_shared, s.d_shared_sites, s.shared_slice_words,
                s.d_clocks, s.d_log, s.d_counts, s.d_counts + 1, s.log_cap, s.d_counts + 2,
                s.bid_lo, s.bid_hi, s.tid_lo, s.tid_hi};
  for (auto setter : s.tus) setter(L);
  s.launches.push_back(LaunchInfo{name, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, 0, 0});
}

inline void after_launch() {
  State &s = state();
  std::unique_lock<std::recursive_mutex> hold(launch_mutex(), std::adopt_lock);   // taken by before_launch
  cudaError_t launched = cudaPeekAtLastError();
  if (launched == cudaErrorLaunchOutOfResources) {
    std::fprintf(stderr, "hirace: kernel '%s' could not be launched under hirace: %s (the instrumented kernel "
                 "needs more resources than the device has for %u x %u x %u threads per block)\n",
                 s.launches.back().kernel.c_str(), cudaGetErrorString(launched), s.launches.back().block[0],
                 s.launches.back().block[1], s.launches.back().block[2]);
    std::fflush(stderr);
    std::_Exit(::cctk::exit_code::kExitRuntimeFailure);
  }
  check_cuda(cudaDeviceSynchronize(), "kernel (under hirace)");
  unsigned counts[3];
  check_cuda(cudaMemcpy(counts, s.d_counts, sizeof counts, cudaMemcpyDeviceToHost), "race log copy");
  unsigned n = std::min(counts[0], s.log_cap);
  std::vector<RaceRecord> recs(n);
  if (n)
    check_cuda(cudaMemcpy(recs.data(), s.d_log, n * sizeof(RaceRecord), cudaMemcpyDeviceToHost), "race log copy");
  unsigned launch = unsigned(s.launches.size() - 1);
  s.launches.back().dropped = counts[1];
  s.launches.back().wrapped = counts[2];
  for (const RaceRecord &r : recs) s.races.push_back(LoggedRace{r, launch});
  LaunchState off{};
  for (auto setter : s.tus) setter(off);
}

inline void write_log() {
  State &s = state();
  ::cctk::host::LogFile log(s.log_path);
  if (!log) return;
  std::FILE *f = log.get();
  namespace rec = ::cctk::hirace_log;   // record writers generated from instrument/protocol.py
  for (size_t i = 0; i < s.buffers.size(); ++i) rec::write_buffer(f, i, s.buffers[i].name.c_str(), s.buffers[i].size);
  for (size_t i = 0; i < s.launches.size(); ++i) {
    const LaunchInfo &l = s.launches[i];
    rec::write_launch(f, i, l.kernel.c_str(), l.grid, l.block, l.dropped, l.wrapped);
  }
  for (const LoggedRace &x : s.races) {
    const RaceRecord &r = x.r;
    rec::write_race(f, x.launch, r.site, r.prior_site == ~0u ? -1 : int(r.prior_site), r.tid, r.bid, r.prior_tid,
                    r.prior_bid, r.prior_state, r.access, r.space, r.buffer, r.offset, r.count);
  }
  rec::write_end(f, 1u << kShift, s.user_bytes_peak, s.tool_bytes_peak);
}

}  // namespace host

// Each translation unit that includes this header registers its own copy of
// g_launch, so a launch reaches kernels defined in any file.
namespace {
inline void hirace_set_this_tu(const LaunchState &s) {
  host::check_cuda(cudaMemcpyToSymbol(g_launch, &s, sizeof s), "launch state copy");
}
static host::TuRegistrar hirace_tu_registrar(&hirace_set_this_tu);
// the log is written at exit also when the program launches no kernel (then it lists none)
static const bool hirace_started = (host::init(), true);
}  // namespace

}  // namespace hirace

#endif  // HIRACE_HOST_H
