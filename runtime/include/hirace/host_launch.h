// Launch bracketing: before_launch (one launch at a time: the lock, the kernel filter, the quiet
// version chosen, the launch epochs, smem mode and hirace's area in the block's dynamic shared memory,
// the scratch grown, the range table, the launch state copied to every translation unit's g_launch)
// and after_launch (a failed launch noted, the "off" state copied where unbracketed launches may run
// instrumented code).
#ifndef HIRACE_HOST_LAUNCH_H
#define HIRACE_HOST_LAUNCH_H

#include "host_quiet.h"
#include "host_granularity.h"   // the shadow's granularity per buffer, refined before a launch
#include "host_buffer_state.h"  // a buffer's shadow and slots, from the first launch that may write it
#include "host_readback.h"
#include "memory_sync.h"
#include "cpu_shared.h"
#include "host_shared_area.h"   // (gpu backend) hirace's area in the block's dynamic shared memory

namespace hirace {
namespace host {

#if defined(CUDAEMU)
// the cpu backend runs a block in one of its slots: a block starting there gets a fresh slice
// (its words are cleaned as its checks reach them: cpu_shared.h)
inline void reset_cpu_shared_shadow() { cpu_shared::forget(::cudaemu::detail::g_slot); }
#endif

// The cpu backend cleans the shared shadow and its site slots as blocks use them (cpu_shared.h): a new
// allocation of them is left as it is
#if defined(CUDAEMU)
constexpr bool kCpuSharedCleaned = true;
#else
constexpr bool kCpuSharedCleaned = false;
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
  const std::string &k = state().kernels, &x = state().kernels_exclude, n = std::string(",") + name + ",";
  return (k.empty() || k.find(n) != std::string::npos) && x.find(n) == std::string::npos;
}

// One launch at a time, also when several host threads launch: before_launch takes the lock and
// after_launch, on the same thread, releases it.
inline std::recursive_mutex &launch_mutex() {
  static std::recursive_mutex m;
  return m;
}

// Synchronisation through memory (docs/memory-model.md, "The device wiring"): the launch's record, zeroed,
// given to every unit that follows it (where one does). It follows the first kMemsyncBlocks blocks of the
// grid (knowledge is blocks x blocks entries), whose flag slots it keeps as many as 2^20 / blocks (a flag's
// releases are an entry per block), a power of two within [kMemsyncSlotsMin, kMemsyncSlotsMax], and
// kMemsyncReaders words' kept records of a read through memory (memsync::ReadPair: several readers of one
// release; 24 bytes each, 384 KiB). Not followed (the record all zero: orders nothing, false alarms only): a launch not checked, a quiet
// version, a cooperative launch (a grid sync would have to start the record afresh), a thread filter (the
// filtered threads' strong accesses would go unseen), a record hirace's memory cannot hold.
constexpr unsigned kMemsyncBlocks = 1024, kMemsyncSlotsMin = 256, kMemsyncSlotsMax = 16384, kMemsyncReaders = 16384;
static_assert(kMemsyncBlocks < memsync::kOnlyMask, "a flag entry's blocks fit its 16-bit fields (memsync::Entry::only)");
inline void prepare_memory_sync(const char *name, bool follow, unsigned long long blocks, unsigned long long tpb) {
  State &s = state();
  memsync::MemorySync m{};
  if (follow) {
    const unsigned b = unsigned(std::min<unsigned long long>(blocks, kMemsyncBlocks));
    unsigned slots = kMemsyncSlotsMin;
    while (slots < kMemsyncSlotsMax && 2ull * slots * b <= (1ull << 20)) slots *= 2;
    const size_t bytes = size_t(memsync::wired_bytes(b, unsigned(tpb), slots, kMemsyncReaders));
    if (bytes > s.d_memsync_bytes || !s.d_memsync) {
      tool_free(s.d_memsync);
      s.d_memsync = try_tool_alloc(bytes);
      s.d_memsync_bytes = s.d_memsync ? bytes : 0;
    }
    if (s.d_memsync) {
      check_cuda(cudaMemset(s.d_memsync, 0, bytes), "memory-sync record reset");
      m = memsync::carve_wired(s.d_memsync, b, unsigned(tpb), slots, kMemsyncReaders);
    }
    static bool told = false;
    if (!told && (blocks > b || !s.d_memsync)) {
      told = true;
      std::fprintf(stderr, "hirace: warning: kernel '%s' runs %llu blocks: synchronisation through memory (fences, "
                   "flags, locks) is followed %s, so accesses ordered only through memory may be reported as races\n",
                   name, blocks, s.d_memsync ? "in its first 1024 blocks only" : "in none (no memory for its record)");
    }
  }
  for (auto setter : s.memsync_tus) setter(&m);
}

// Every word of every shadow back to INIT: when the launch epochs' block numbering would overflow
inline void reset_shadows() {
  State &s = state();
  for (const Buffer &b : s.buffers)
    if (b.live && b.shadow) check_cuda(cudaMemset(b.shadow, 0, shadow_words(b.size, b.shift) * 8), "shadow reset");
  if (s.d_shared) check_cuda(cudaMemset(s.d_shared, 0, s.d_shared_bytes), "shared-memory shadow reset");
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

// `area_ok`: the kernel starts with block_entry and the launch asks for launch_shared_bytes(), so
// hirace may keep the block's clocks and shared shadow in its dynamic shared memory.
// `in_order`: the launch is on the legacy default stream, which runs it after every earlier launch
// and copy: its state is then copied without waiting, and the launch is not waited for; the log
// is read back when a launch noted something, when kPendingLaunches launches are pending, before
// a launch on another stream, a buffer's release or a device reset, and at exit. A launch on another
// stream (or one whose stream the launch does not name plainly) waits for all before and is waited for.
// Host accesses of managed and pinned memory (host_access.h, in units that follow the host's order):
// every page open while a grid runs. Pointers every unit shares, so that a launch brackets its grid
// whichever unit's copy of before_launch the linker keeps.
inline void (*g_access_enter)() = nullptr;
inline void (*g_access_leave)() = nullptr;
// A program that uses streams, on the gpu backend (host_streams.h, stream_footprint.h): every launch is
// waited for, its footprint arrays are prepared before the range table (they are hirace's memory) and read
// back once it ran, as an operation of its stream (`failed`: the launch did not start).
inline void (*g_footprint_prepare)(unsigned long long *const **table, unsigned **touched) = nullptr;
inline void (*g_footprint_take)(bool failed) = nullptr;
// ... and a launch a stream capture took instead of running it: its node named (host_graphs_gpu.h)
inline void (*g_launch_captured)() = nullptr;

// A cooperative launch's block numberings: at most the grid syncs BlockWord counts, and at least
// this many where the numbering left after the earlier launches holds fewer (else reset first)
constexpr unsigned long long kGridEpochs = 1ull << 16, kGridEpochsWanted = 1024;

// `cooperative`: a cudaLaunchCooperativeKernel, whose threads may sync the grid: the launch takes
// a block numbering per grid sync (LaunchState::grid_epochs; after_grid_barrier), as many as the
// shadow's and the slots' numbering hold after a reset, and the next launch resets them again.
inline void before_launch(const void *kernel, const char *name, dim3 grid, dim3 block, size_t shm,
                          bool area_ok = false, bool in_order = false, bool cooperative = false) {
  if (g_access_enter) g_access_enter();   // (host_access.h: every page open while the grid runs, until after_launch)
  launch_mutex().lock();
#if defined(CUDAEMU)
  ++::cudaemu::detail::g_turn;   // (what the checks' memo kept is an earlier launch's: turn_memo.h)
#endif
  if (state().capturing > 0) {   // recorded into a graph, not run now (see begin_capture)
    state().captured_now = true;
    ++state().captured_launches;
    pending_widths() = LaunchWidths{};   // (its node's launch passes none: every buffer then as fine as any access)
    pending_quiet() = QuietArgs{};       // (nor quiet parameters, nor what it writes)
    pending_version() = QuietVersion{};
    return;
  }
  init();
  State &s = state();
  if (g_footprint_take) in_order = false;   // (a footprint is read back after its launch alone)
  int device = 0;
  cudaGetDevice(&device);
  set_unit_bases(device);
  if (!in_order || s.pending.size() >= kPendingLaunches || (s.h_noted && *(volatile unsigned *)s.h_noted) ||
      device != s.pending_device)
    drain();
  s.pending_device = device;
  for (Symbol &sym : s.symbols)
    if (sym.buffer < 0) sym.buffer = add_buffer(sym.address(), sym.size, sym.name, 0, sym.file, sym.line);
  refine_for_launch();   // (before the range table: a buffer made finer has a new shadow)
  bool enabled = kernel_selected(name);
  LaunchState quiet{};
  const QuietArgs args = pending_quiet();   // (what it writes, for state_for_launch: take_quiet_args forgets it)
  take_quiet_args(quiet);   // this launch's quiet parameters, if its arguments were given
  const QuietVersion version = pending_version();
  pending_version() = QuietVersion{};
  s.quiet_chosen = s.quiet_versions && version.offered && version.ok && enabled && (quiet.quiet_params & version.need) == version.need &&
                   s.bid_lo == 0 && s.bid_hi == ~0u && s.tid_lo == 0 && s.tid_hi == ~0u;
  state_for_launch(args, enabled && !s.quiet_chosen);   // (the buffers it may write: their shadow, before the range table)
  give_wanted_sites();   // (slots a race asked for: host_site_budget.h)
  if (s.quiet_chosen) area_ok = false;   // (the quiet version keeps no clocks nor shadow)
  unsigned long long tpb = 1ull * block.x * block.y * block.z;
  unsigned long long blocks = 1ull * grid.x * grid.y * grid.z;
  // a launch boundary orders everything before it: this launch's blocks are numbered past every
  // earlier one's, so the words they wrote read as INIT (see ThreadCtx::base)
  if (s.block_base + blocks > (1ull << ShadowWord::kBidBits)) {
    reset_shadows();
    s.block_base = 0;
  }
  static bool told_numbering = false;
  if (blocks > (1ull << ShadowWord::kBidBits) && !told_numbering) {
    told_numbering = true;
    std::fprintf(stderr, "hirace: warning: kernel '%s' runs %llu blocks: the shadow numbers blocks modulo 2^%u, so two "
                 "blocks that far apart are taken as one and a race between them may be missed\n", name, blocks,
                 ShadowWord::kBidBits);
  }
  unsigned long long epochs = 1;   // block numberings this launch takes (grid syncs + 1)
  if (cooperative) {
    if (((1ull << ShadowWord::kBidBits) - s.block_base) / blocks < kGridEpochsWanted && s.block_base) {
      reset_shadows();
      s.block_base = 0;
    }
    epochs = std::min<unsigned long long>(kGridEpochs, ((1ull << ShadowWord::kBidBits) - s.block_base) / blocks);
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
  if (area && cooperative && !area_keeps_occupancy(kernel, int(tpb), shm, area_offset + area - shm)) {
    area = 0;   // (its grid was sized to the blocks that fit: the area may not cost one)
    sites_in_area = false;
  }
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
    if (grow(&s.d_shared, &s.d_shared_bytes, shared_bytes, "shared-memory shadow") && !kCpuSharedCleaned)
      check_cuda(cudaMemset(s.d_shared, 0, s.d_shared_bytes), "shared-memory shadow reset");
  }
  // (a grid of 4M blocks or more names one access; sites given up for room name none)
  bool sites = s.prior_sites && !s.sites_evicted && blocks < kSiteBlocks && !s.quiet_chosen;
  if (sites) {   // the slots are numbered by launch as the shadow is: cleared only when the numbering is full
    if (s.site_base + blocks * epochs > kSiteBlocks) {
      for (const Buffer &b : s.buffers)
        if (b.live && b.sites) check_cuda(cudaMemset(b.sites, 0xff, shadow_words(b.size, b.shift) * 4 * kSiteSlots), "site shadow reset");
      if (s.d_shared_sites) check_cuda(cudaMemset(s.d_shared_sites, 0xff, s.d_shared_sites_bytes), "site shadow reset");
      s.site_base = 0;
    }
    epochs = std::max<unsigned long long>(1, std::min<unsigned long long>(epochs, kSiteBlocks / blocks));
#if defined(CUDAEMU)
    unsigned long long site_slices = slices;
#else
    unsigned long long site_slices = sites_in_area ? 0 : blocks;
#endif
    size_t site_bytes = std::max<size_t>(size_t(s.shared_slice_words * site_slices), 2) * 4 * kSiteSlots;
    if (site_bytes > s.d_shared_sites_bytes || !s.d_shared_sites) {
      tool_free(s.d_shared_sites);
      s.d_shared_sites = kCpuSharedCleaned ? static_cast<unsigned *>(try_tool_alloc(site_bytes)) : site_slots(site_bytes);
      if (!s.d_shared_sites && kCpuSharedCleaned) evict_sites();   // (as site_slots does)
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
  if (!s.memsync_tus.empty())   // (before the range table: the record is hirace's memory)
    prepare_memory_sync(name, enabled && !s.quiet_chosen && !cooperative && s.bid_lo == 0 && s.bid_hi == ~0u &&
                                  s.tid_lo == 0 && s.tid_hi == ~0u, blocks, tpb);
  unsigned long long *const *footprints = nullptr;
  unsigned *footprint_touched = nullptr;
  if (g_footprint_prepare) g_footprint_prepare(&footprints, &footprint_touched);   // (before the range table)
  if (s.table_generation != s.generation) {   // a buffer or hirace's memory came or went
    size_t nbuffers = 0;
    for (const Buffer &b : s.buffers) nbuffers += b.live && b.size;
    size_t cap = s.d_ranges_cap * sizeof(Range);   // (a new table is itself hirace's memory: listed below)
    grow(&s.d_ranges, &cap, (nbuffers + s.tool_memory.size() + 8) * sizeof(Range), "range table");
    s.d_ranges_cap = cap / sizeof(Range);
    std::vector<Range> ranges;
    for (size_t i = 0; i < s.buffers.size(); ++i) {
      const Buffer &b = s.buffers[i];
      if (b.live && b.size)   // (a buffer without state: bounds only, host_buffer_state.h)
        ranges.push_back(Range{(unsigned long long)b.base, b.size, b.redzone, b.shadow, b.sites, unsigned(i), kUserBuffer, b.shift});
    }
    // hirace's own memory is in the table too: an access of the program there is out of bounds
    for (const auto &t : s.tool_memory)
      if (t.first != s.d_sinks) ranges.push_back(Range{(unsigned long long)t.first, t.second, 0, nullptr, nullptr, kNoBuffer, kToolMemory, kShift});
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
  L.quiet_paired = quiet.quiet_paired;
  std::copy(quiet.quiet_lo, quiet.quiet_lo + kQuietParams, L.quiet_lo);
  std::copy(quiet.quiet_hi, quiet.quiet_hi + kQuietParams, L.quiet_hi);
  L.grid_epochs = unsigned(epochs);
  L.footprints = enabled ? footprints : nullptr;
  L.footprint_touched = footprint_touched;
  s.block_base += blocks * epochs;
  if (sites) s.site_base += blocks * epochs;
  s.h_states[slot] = L;   // pinned, kept until the launch is read back: the source of an asynchronous copy
  static bool copied_once = false;   // (HIRACE_BENCH_STATE_COPIED_ONCE, benchmarks only: copied at the first launch only)
  if (!HIRACE_BENCH_STATE_COPIED_ONCE || !copied_once)
    for (auto setter : s.tus) setter(s.h_states[slot], in_order);
  copied_once = true;
  s.pending.push_back(unsigned(s.launches.size()));
  s.last_in_order = in_order;
  s.launches.push_back(LaunchInfo{name, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, 0, 0, 0,
                                      unsigned(s.quiet_chosen), 0u, quiet.quiet_params});
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
  const struct Leave { ~Leave() { if (g_access_leave) g_access_leave(); } } leave_at_return{};
  State &s = state();
  std::unique_lock<std::recursive_mutex> hold(launch_mutex(), std::adopt_lock);   // taken by before_launch
  if (s.captured_now) {
    s.captured_now = false;
    if (g_launch_captured) {   // (the graph's nodes run in hirace's brackets when launched: no warning at exit)
      g_launch_captured();
      --s.captured_launches;
    }
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
  if (g_footprint_take) g_footprint_take(s.launches.back().failed != 0);
  // kernels launched outside hirace's brackets check nothing (the copy need not be waited for: the
  // next launch's state is copied after it, in order). Not where the planner found that the
  // program runs its instrumented code in bracketed launches only (HIRACE_BRACKETED_ONLY): the
  // next launch copies its own state, and this copy would double a small launch's cost.
  if (!HIRACE_BRACKETED_ONLY && !HIRACE_BENCH_NO_OFF_STATE && !HIRACE_BENCH_STATE_COPIED_ONCE)
    for (auto setter : s.tus) setter(*s.h_off, true);
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_LAUNCH_H
