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

#include "alloc_hooks.h"   // the allocation kinds (its macros come below)
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
};

struct State {
  bool init = false, prior_sites = false, enabled = true, bounds = true;
  std::string log_path, kernels;
  unsigned log_cap = 1024;
  unsigned bid_lo = 0, bid_hi = ~0u, tid_lo = 0, tid_hi = ~0u;
  std::vector<Buffer> buffers;
  std::vector<Symbol> symbols;
  std::vector<void (*)(const LaunchState &)> tus;
  std::vector<LoggedRace> races;
  std::vector<LoggedMem> mem_errors;
  std::vector<LaunchInfo> launches;
  std::vector<std::pair<void *, size_t>> tool_memory;  // hirace's own device allocations
  // device-side scratch, reused across launches
  Range *d_ranges = nullptr;
  size_t d_ranges_cap = 0;
  unsigned *d_clocks = nullptr;
  size_t d_clocks_bytes = 0;
  unsigned long long *d_shared = nullptr;
  unsigned *d_shared_sites = nullptr;
  size_t d_shared_bytes = 0;
  RaceRecord *d_log = nullptr;
  MemRecord *d_mem_log = nullptr;
  unsigned *d_counts = nullptr;  // [0] race records, [1] dropped, [2] wrapped, [3] memory records, [4] dropped
  void *d_sinks = nullptr;       // the read sink (zeros), then the write sink
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
  if (const char *p = option(::cctk::env::kHiraceBounds)) s.bounds = *p != '0';
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

// hirace's own device memory: allocated through the API's parenthesized name (which the
// tracking macros leave alone) and listed, so that an access of the program that lands there
// is caught as out of bounds instead of corrupting the checker.
inline void *tool_alloc(size_t bytes, const char *what) {
  void *p = nullptr;
  check_cuda((cudaMalloc)(&p, bytes), what);
  state().tool_memory.push_back({p, bytes});
  return p;
}
inline void tool_free(void *p) {
  if (!p) return;
  auto &t = state().tool_memory;
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].first == p) {
      t.erase(t.begin() + long(i));
      break;
    }
  (cudaFree)(p);
}

inline int add_buffer(void *base, size_t size, const char *name, size_t redzone, const char *file, unsigned line) {
  State &s = state();
  Buffer b{base, size, nullptr, nullptr, name ? name : "?", true, redzone, file ? file : "", line};
  size_t words = shadow_words(size);
  if (words) {
    b.shadow = static_cast<unsigned long long *>(tool_alloc(words * 8, "shadow allocation"));
    check_cuda(cudaMemset(b.shadow, 0, words * 8), "shadow reset");
    if (s.prior_sites) {
      b.sites = static_cast<unsigned *>(tool_alloc(words * 4 * kSiteSlots, "site shadow allocation"));
      check_cuda(cudaMemset(b.sites, 0xff, words * 4 * kSiteSlots), "site shadow reset");
    }
  }
  s.buffers.push_back(b);
  return int(s.buffers.size() - 1);
}

// Redzones around each allocation of the program: an access a little past either end lands in
// memory that belongs to no buffer (and is reported), not in the next buffer or hirace's shadow.
// A multiple of 256 bytes keeps the alignment cudaMalloc promises.
inline size_t redzone_for(size_t bytes) {
  size_t rz = (bytes / 16 + 255) / 256 * 256;
  return std::min<size_t>(std::max<size_t>(rz, 256), size_t(1) << 20);
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
  char *raw = static_cast<char *>(p);
  bool found = false;
  for (Buffer &b : state().buffers)
    if (b.live && b.base == p) {
      b.live = false;
      tool_free(b.shadow);
      tool_free(b.sites);
      b.shadow = nullptr;
      b.sites = nullptr;
      if (!found) raw -= b.redzone;
      found = true;
    }
  return kind == kHostAlloc ? (cudaFreeHost)(raw) : (cudaFree)(raw);
}

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
  explicit TuRegistrar(void (*setter)(const LaunchState &)) { state().tus.push_back(setter); }
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

template <class T> inline void grow(T **p, size_t *cap_bytes, size_t need_bytes, const char *what) {
  if (need_bytes <= *cap_bytes) return;
  tool_free(*p);
  size_t bytes = std::max(need_bytes, *cap_bytes * 2);
  *p = static_cast<T *>(tool_alloc(bytes, what));
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
    if (sym.buffer < 0) sym.buffer = add_buffer(sym.address(), sym.size, sym.name, 0, sym.file, sym.line);
  std::vector<Range> ranges;
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const Buffer &b = s.buffers[i];
    if (b.live && b.shadow)
      ranges.push_back(Range{(unsigned long long)b.base, b.size, b.redzone, b.shadow, b.sites, unsigned(i), kUserBuffer});
  }
  // a launch boundary orders everything before it: every word starts afresh
  for (const Range &r : ranges) {
    check_cuda(cudaMemset(r.shadow, 0, shadow_words(r.size) * 8), "shadow reset");
    if (r.sites) check_cuda(cudaMemset(r.sites, 0xff, shadow_words(r.size) * 4 * kSiteSlots), "site shadow reset");
  }
  size_t cap = s.d_ranges_cap * sizeof(Range);
  grow(&s.d_ranges, &cap, (ranges.size() + s.tool_memory.size() + 8) * sizeof(Range), "range table");
  s.d_ranges_cap = cap / sizeof(Range);
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
      tool_free(s.d_shared_sites);
      s.d_shared_sites = static_cast<unsigned *>(tool_alloc(s.d_shared_bytes / 2 * kSiteSlots, "site shadow"));
    }
#if !defined(CUDAEMU)
    check_cuda(cudaMemset(s.d_shared_sites, 0xff, s.d_shared_bytes / 2 * kSiteSlots), "site shadow reset");
#endif
  }
#if !defined(CUDAEMU)
  check_cuda(cudaMemset(s.d_shared, 0, s.d_shared_bytes), "shared-memory shadow reset");
#endif
  if (!s.d_log) {
    s.d_log = static_cast<RaceRecord *>(tool_alloc(s.log_cap * sizeof(RaceRecord), "race log"));
    s.d_mem_log = static_cast<MemRecord *>(tool_alloc(s.log_cap * sizeof(MemRecord), "memory error log"));
    s.d_counts = static_cast<unsigned *>(tool_alloc(5 * sizeof(unsigned), "race log"));
    s.d_sinks = tool_alloc(2 * kSinkBytes, "out-of-bounds sink");
  }
  check_cuda(cudaMemset(s.d_counts, 0, 5 * sizeof(unsigned)), "race log reset");
  check_cuda(cudaMemset(s.d_sinks, 0, kSinkBytes), "out-of-bounds sink reset");
  // hirace's own memory is in the table too: an access of the program there is out of bounds
  for (const auto &t : s.tool_memory)
    if (t.first != s.d_sinks) ranges.push_back(Range{(unsigned long long)t.first, t.second, 0, nullptr, nullptr, kNoBuffer, kToolMemory});
  std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) { return a.base < b.base; });
  if (!ranges.empty())
    check_cuda(cudaMemcpy(s.d_ranges, ranges.data(), ranges.size() * sizeof(Range), cudaMemcpyHostToDevice),
               "range table copy");
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
  LaunchState L{};
  L.enabled = kernel_selected(name) ? 1u : 0u;
  L.granularity_shift = kShift;
  L.prior_sites = s.prior_sites ? 1u : 0u;
  L.threads_per_block = unsigned(tpb);
  L.ranges = s.d_ranges;
  L.nranges = unsigned(ranges.size());
  L.shared_shadow = s.d_shared;
  L.shared_sites = s.d_shared_sites;
  L.shared_slice_words = s.shared_slice_words;
  L.clocks = s.d_clocks;
  L.log = s.d_log;
  L.log_count = s.d_counts;
  L.dropped = s.d_counts + 1;
  L.log_cap = s.log_cap;
  L.wrapped = s.d_counts + 2;
  L.bid_lo = s.bid_lo;
  L.bid_hi = s.bid_hi;
  L.tid_lo = s.tid_lo;
  L.tid_hi = s.tid_hi;
  L.mem_log = s.d_mem_log;
  L.mem_count = s.d_counts + 3;
  L.dynamic_shared = shm;
  L.bounds = s.bounds ? 1u : 0u;
  L.sink_read = s.d_sinks;
  L.sink_write = static_cast<char *>(s.d_sinks) + kSinkBytes;
  for (auto setter : s.tus) setter(L);
  s.launches.push_back(LaunchInfo{name, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, 0, 0, 0});
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
  unsigned counts[5];
  check_cuda(cudaMemcpy(counts, s.d_counts, sizeof counts, cudaMemcpyDeviceToHost), "race log copy");
  unsigned n = std::min(counts[0], s.log_cap);
  std::vector<RaceRecord> recs(n);
  if (n)
    check_cuda(cudaMemcpy(recs.data(), s.d_log, n * sizeof(RaceRecord), cudaMemcpyDeviceToHost), "race log copy");
  unsigned launch = unsigned(s.launches.size() - 1);
  s.launches.back().dropped = counts[1];
  s.launches.back().wrapped = counts[2];
  for (const RaceRecord &r : recs) s.races.push_back(LoggedRace{r, launch});
  s.launches.back().mem_dropped = counts[4];
  unsigned m = std::min(counts[3], s.log_cap);
  if (m) {
    std::vector<MemRecord> mem(m);
    check_cuda(cudaMemcpy(mem.data(), s.d_mem_log, m * sizeof(MemRecord), cudaMemcpyDeviceToHost), "memory error log copy");
    for (const MemRecord &r : mem) {   // one report per site and buffer, over all launches
      if (r.count == 0) continue;       // a record whose writer had not finished (cannot happen after a sync)
      bool merged = false;
      for (LoggedMem &e : s.mem_errors)
        if (e.r.site == r.site && e.r.buffer == r.buffer) {
          e.r.count += r.count;
          merged = true;
          break;
        }
      if (!merged) s.mem_errors.push_back(LoggedMem{r, launch});
    }
  }
  LaunchState off{};
  for (auto setter : s.tus) setter(off);
}

inline void write_log() {
  State &s = state();
  ::cctk::host::LogFile log(s.log_path);
  if (!log) return;
  std::FILE *f = log.get();
  namespace rec = ::cctk::hirace_log;   // record writers generated from instrument/protocol.py
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const Buffer &b = s.buffers[i];
    rec::write_buffer(f, i, b.name.c_str(), b.size, b.file.c_str(), b.line);
  }
  for (size_t i = 0; i < s.launches.size(); ++i) {
    const LaunchInfo &l = s.launches[i];
    rec::write_launch(f, i, l.kernel.c_str(), l.grid, l.block, l.dropped, l.wrapped, l.mem_dropped);
  }
  for (const LoggedRace &x : s.races) {
    const RaceRecord &r = x.r;
    rec::write_race(f, x.launch, r.site, r.prior_site == ~0u ? -1 : int(r.prior_site), r.tid, r.bid, r.prior_tid,
                    r.prior_bid, r.prior_state, r.access, r.space, r.buffer, r.offset, r.count);
  }
  for (const LoggedMem &x : s.mem_errors) {
    const MemRecord &r = x.r;
    rec::write_memory_error(f, x.launch, r.site, r.tid, r.bid, r.access, r.space,
                            r.buffer == kNoBuffer ? -1 : int(r.buffer), r.offset, r.limit, r.size, r.count);
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
