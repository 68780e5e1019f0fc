// hirace device-side runtime: where a monitored word's shadow lives, the checks
// instrumented accesses call, barrier clocks, and the bounded race log.
// Compiles with nvcc (device code) and, on the cpu backend, as host code.
#ifndef HIRACE_RUNTIME_H
#define HIRACE_RUNTIME_H

#include "config.h"
#include "update.h"

#include "cudacommon/protocol.h"
#include "cudacommon/qualifiers.h"

namespace hirace {

enum Space : unsigned { kGlobal = 0, kShared = 1 };

// One monitored global range: a buffer of the program, [base, base + size), with the
// redzones hirace put around it, [base - redzone, base) and [base + size, base + size + redzone),
// or memory of hirace's own (kind kToolMemory: no access of the program belongs there).
enum RangeKind : unsigned { kUserBuffer = 0, kToolMemory = 1 };
struct Range {
  unsigned long long base, size, redzone;
  unsigned long long *shadow;
  unsigned *sites;  // kSiteSlots per word (only with prior_sites): see check()
  unsigned id;      // the host's buffer id, for reports
  unsigned kind;
};

// A race as the device records it; the host turns it into a report.
// Launches run without waiting for each other (see host.h before_launch): up to kPendingLaunches
// of them log into one race log before the host reads it, each record naming its launch's slot.
#ifndef HIRACE_PENDING_LAUNCHES
#define HIRACE_PENDING_LAUNCHES 64
#endif
constexpr unsigned kPendingLaunches = HIRACE_PENDING_LAUNCHES;

struct RaceRecord {
  unsigned site, prior_site, tid, bid, prior_tid, prior_bid, prior_state, access, space, buffer;
  unsigned long long offset;  // bytes from the buffer (or shared window) start
  unsigned count;             // word-level races folded into this record (on the device: LogEntry::count)
  unsigned slot;              // the launch's pending slot (LaunchState::slot)
};

// An out-of-bounds access site as the device records it: the first access, and how many.
constexpr unsigned kNoBuffer = ~0u;  // outside every buffer, or a declared array (the site names it)
struct MemRecord {
  unsigned site, tid, bid, access, space, buffer;
  long long offset;          // bytes from the buffer's (array's) start; negative: before it
  unsigned long long limit;  // the buffer's (array's) bytes
  unsigned size, count;      // count: accesses folded into this record (on the device: LogEntry::count)
  unsigned slot;             // the pending slot of the launch that made the first access
};

// An entry of a log (see log_record).
template <class R> struct LogEntry {
  unsigned long long key;   // 0: empty
  unsigned count;           // accesses folded into the record
  unsigned seq;             // the record's number in the order they were made
  R r;
};

// With prior_sites, each word keeps its last access's site and thread, and the site and thread of
// the last access by another thread: a race found against a level several threads share (the
// shadow names this very thread) is then reported with the other thread's access.
// A slot's thread is (block << kSiteTidBits) | thread in block, its block numbered across launches
// from LaunchState::site_base as the shadow's are from block_base: a slot written by an earlier
// launch holds a block below site_base and reads as empty, so no launch clears the slots (the host
// clears them only when the numbering would reach kSiteBlocks). ~0u: empty.
constexpr unsigned kSiteSlots = 4;   // unsigneds per word: one SiteSlots
struct alignas(16) SiteSlots {
  unsigned last_site, last_thread, other_site, other_thread;
};
constexpr unsigned kSiteTidBits = 10;                                  // blocks hold at most 1024 threads
constexpr unsigned long long kSiteBlocks = (1ull << (32 - kSiteTidBits)) - 1;   // the top block would make ~0u

// A slot's site word: the site id, then the access's kind and the low bits of its thread's clocks.
// A race names an access from the slots only when that access can race with this one (another
// thread's, of a conflicting kind, in this barrier interval unless in another block): a slot the
// fast paths did not rewrite, or whose store came after the next access's (on the GPU a thread can
// run between another's shadow update and its slot store), is then not named, never misnamed.
constexpr unsigned kSiteIdBits = ::cctk::kSiteIdBits;
constexpr unsigned kSiteKindShift = kSiteIdBits, kSiteBclkShift = kSiteIdBits + 2, kSiteBclkBits = 6;
constexpr unsigned kSiteWclkShift = kSiteBclkShift + kSiteBclkBits, kSiteWclkBits = 32 - kSiteWclkShift;
static_assert(kSiteWclkBits >= 2, "a site word keeps a few bits of the __syncwarp clock");

CCTK_HD inline unsigned site_word(unsigned site, fsm::Access kind, const ThreadCtx &c) {
  return site | unsigned(kind) << kSiteKindShift | (c.bclk & ((1u << kSiteBclkBits) - 1)) << kSiteBclkShift |
         (c.wclk & ((1u << kSiteWclkBits) - 1)) << kSiteWclkShift;
}
CCTK_HD inline unsigned site_id(unsigned word) { return word & ((1u << kSiteIdBits) - 1); }
CCTK_HD inline unsigned site_kind(unsigned word) { return (word >> kSiteKindShift) & 3u; }
// the clock bits of two site words are equal: the same barrier interval (modulo the bits kept)
CCTK_HD inline bool same_interval(unsigned a, unsigned b) { return (a >> kSiteBclkShift) == (b >> kSiteBclkShift); }

// May the access a slot names (thread `t`, site word `w`) race with this access (thread `me`, site
// word `mine`)? `first` is this launch's first slot thread.
CCTK_HD inline bool may_race(unsigned t, unsigned w, unsigned me, unsigned mine, unsigned first, unsigned warp_size) {
  if (t == ~0u || t < first || t == me) return false;
  unsigned a = site_kind(w), b = site_kind(mine);
  bool same_block = (t >> kSiteTidBits) == (me >> kSiteTidBits);
  if (a == fsm::kRead && b == fsm::kRead) return false;
  if (a >= fsm::kBlockAtomic && b >= fsm::kBlockAtomic && (same_block || (a == fsm::kDeviceAtomic && b == fsm::kDeviceAtomic)))
    return false;
  if (!same_block) return true;
  const unsigned lanes = (1u << kSiteTidBits) - 1;
  if ((t & lanes) / warp_size != (me & lanes) / warp_size)   // another warp: the __syncthreads clock
    return ((w ^ mine) >> kSiteBclkShift & ((1u << kSiteBclkBits) - 1)) == 0;
  return same_interval(w, mine);
}

// The bytes of a declared array that has none: the launch's dynamic shared memory
constexpr unsigned long long kDynamicShared = ~0ull;
// An access outside its buffer does not happen: a read reads kSinkBytes of zeros, a write or an
// atomic goes to a scratch area (larger accesses cannot be diverted and go ahead)
constexpr unsigned kSinkBytes = 1024;

// Kernel parameters whose accesses may be quiet in a launch, given the buffers its arguments point
// into (read-only and own parameters: instrument/readonly_params.py and host.h quiet_params): at
// most this many per kernel
constexpr unsigned kQuietParams = 8;

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
  LogEntry<RaceRecord> *log;   // log_mask + 1 entries
  unsigned *log_count;  // records made: shared by the pending launches, as the log is
  unsigned *dropped;    // this launch's
  unsigned log_cap;     // records each log makes at most
  unsigned log_mask;    // entries in each log, less one (a power of two, at least 2 * log_cap)
  unsigned *wrapped;  // this launch's: set when a barrier clock wraps (see sync_status)
  unsigned *noted;    // host-mapped: set with anything above, so that launches without any are not read back
  unsigned bid_lo, bid_hi, tid_lo, tid_hi;  // only threads in these ranges are checked
  LogEntry<MemRecord> *mem_log;
  unsigned *mem_count;    // records made: shared by the pending launches
  unsigned *mem_dropped;  // this launch's
  unsigned slot;          // this launch's pending slot: its records name it
  unsigned long long dynamic_shared;  // the launch's dynamic shared memory, bytes
  void *sink_read, *sink_write;       // kSinkBytes each
  unsigned bounds;                    // 0: out-of-bounds accesses are neither reported nor diverted
  unsigned block_base;                // this launch's first block in the shadow's block numbering (see ThreadCtx)
  unsigned site_base;                 // this launch's first block in the site slots' numbering (kSiteTidBits)
  // 1: each block keeps its clocks and its shared-memory shadow in dynamic shared memory after the
  // program's own, `area_offset` bytes from its start (see block_entry); 0: in global memory, per thread
  // (clocks) and per block (shared_shadow)
  unsigned smem;
  unsigned smem_sites;                // smem mode: the shared window's site slots follow the shadow in the area
  unsigned long long area_offset;
  unsigned long long shared_floor;    // bytes of the shared window below the program's variables
  // bit i: the kernel's i-th quiet candidate points into a buffer, [quiet_lo[i], quiet_hi[i]), that
  // no parameter it writes through (a read-only parameter) or no other parameter at all (an own
  // parameter) points into in this launch: its accesses there cannot race
  unsigned quiet_params;
  unsigned long long quiet_lo[kQuietParams], quiet_hi[kQuietParams];
  unsigned char *ran;   // per site: 1 once its check ran in some launch (the run's report counts them)
};

static CCTK_CONSTANT LaunchState g_launch;

// A site's id, as its check passes it, noting that the site ran (hirace/planner.py _sid), in a build
// that records it (HIRACE_SITES_RAN: always on the cpu backend; on the gpu backend a flag per access
// costs up to half the check's time again, so only when asked): what a report says of the sites
// that never ran on the run's input comes from these flags. (Each unit its own: units may differ.)
#ifndef HIRACE_SITES_RAN
#define HIRACE_SITES_RAN 0
#endif
namespace {
CCTK_HD inline unsigned ran(unsigned site) {
#if HIRACE_SITES_RAN && (defined(__CUDA_ARCH__) || defined(CUDAEMU))
#if defined(CUDAEMU)
  if (::cudaemu::detail::g_cur == nullptr) return site;   // (a __host__ __device__ function the host calls)
#endif
  unsigned char *r = g_launch.ran;
  if (r && !r[site]) r[site] = 1;
#endif
  return site;
}
}  // namespace

CCTK_D inline unsigned linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
CCTK_D inline unsigned linear_bid() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
// hirace's part of the block's dynamic shared memory (smem mode): two clocks per thread, then the
// shadow of the block's shared window from shared_floor on, then (smem_sites) its site slots at a
// 16-byte boundary
CCTK_D inline unsigned *shared_area() {
#if defined(__CUDA_ARCH__)
  extern __shared__ __align__(16) unsigned char hirace_dynamic_shared[];
  return reinterpret_cast<unsigned *>(hirace_dynamic_shared + g_launch.area_offset);
#else
  return nullptr;
#endif
}

// The area's 8-byte word where the shared window's site slots start (smem_sites)
CCTK_D inline unsigned long long area_sites_word() {
  return (g_launch.threads_per_block + g_launch.shared_slice_words + 1) & ~1ull;
}

CCTK_D inline unsigned *thread_clocks() {
  const LaunchState &L = g_launch;
  if (L.smem) return shared_area() + 2 * linear_tid();
  return L.clocks + 2ull * (linear_bid() * (unsigned long long)L.threads_per_block + linear_tid());
}

// The first statement of every instrumented kernel: in smem mode the block's clocks and shadow
// start at zero (dynamic shared memory holds whatever the SM's last block left there).
#if (HIRACE_BENCH_CUT == 9 || HIRACE_BENCH_CUT == 12) && defined(__CUDA_ARCH__)
CCTK_D inline void bench_never_called_check();
#endif
// `shadow_unused`: no shared word of this launch is checked whole (every shared-memory site of the
// kernel is quiet and their launch conditions hold: hirace/planner.py): only each thread's clocks
// are cleared, by the thread, without a barrier.
CCTK_D inline void block_entry(bool shadow_unused = false) {
#if defined(__CUDA_ARCH__)
#if HIRACE_BENCH_CUT == 9 || HIRACE_BENCH_CUT == 12
  bench_never_called_check();
#endif
  const LaunchState &L = g_launch;
  if (!L.enabled || !L.smem) return;
#if HIRACE_BENCH_CUT == 20   // (benchmarks only: what clearing the area costs; wrong verdicts)
  return;
#endif
  unsigned long long *area = reinterpret_cast<unsigned long long *>(shared_area());
  if (shadow_unused) {
    area[linear_tid()] = 0;   // the thread's two clocks
    return;
  }
  unsigned n = blockDim.x * blockDim.y * blockDim.z;
  unsigned long long words = n + L.shared_slice_words;   // a thread's two clocks are one word
  for (unsigned long long w = linear_tid(); w < words; w += n) area[w] = 0;
  if (L.smem_sites) {   // empty slots: ~0
    unsigned long long *sites = area + area_sites_word();
    for (unsigned long long w = linear_tid(); w < 2 * L.shared_slice_words; w += n) sites[w] = ~0ull;
  }
  __syncthreads();
#endif
}

CCTK_D inline void note_wrapped() {
  *g_launch.wrapped = 1;
  *(volatile unsigned *)g_launch.noted = 1;
}
CCTK_D inline void after_block_barrier() {
  if (g_launch.enabled && ++thread_clocks()[0] == (1u << ShadowWord::kBclkBits)) note_wrapped();
}
CCTK_D inline void after_warp_barrier() {
  if (g_launch.enabled && ++thread_clocks()[1] == (1u << ShadowWord::kWclkBits)) note_wrapped();
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

// Where a monitored address lies: its buffer or shared window, and the offset from its start
// (outside [0, limit) when the address is in a redzone).
struct Location {
  unsigned long long *shadow;
  unsigned *sites;
  long long offset;          // bytes from the start of the buffer / shared window
  unsigned long long limit;  // bytes in the buffer / shared window
  unsigned space, buffer;
  long long floor;           // the lowest offset of the program's (the window's reserved bytes lie below)
};

CCTK_D inline bool inside(const Location &loc, unsigned size) {
  return loc.offset >= loc.floor && (unsigned long long)loc.offset + size <= loc.limit;
}

#if defined(__CUDA_ARCH__)
// smem mode: the access at offset `off` of the block's shared window, whose shadow hirace's area
// keeps from the window's shared_floor on, and its site slots with smem_sites (null without: the
// caller's to find). Every pointer here comes from the block's dynamic shared memory, so that code
// using them inline addresses shared memory as such.
CCTK_D inline Location smem_window(unsigned long long off) {
  const LaunchState &L = g_launch;
  unsigned long long floor_words = L.shared_floor >> L.granularity_shift;
  unsigned long long *area = reinterpret_cast<unsigned long long *>(shared_area());
  unsigned *sites = L.smem_sites ? reinterpret_cast<unsigned *>(area + area_sites_word()) - kSiteSlots * floor_words
                                 : nullptr;
  return Location{area + L.threads_per_block - floor_words, sites, (long long)off,
                  (L.shared_slice_words + floor_words) << L.granularity_shift, kShared, kNoBuffer,
                  (long long)L.shared_floor};
}
#endif

// false: nowhere hirace watches (host memory, constant, local)
CCTK_D inline bool locate(const void *p, Location *loc) {
  const LaunchState &L = g_launch;
#if defined(__CUDA_ARCH__)
  if (__isShared(p)) {
    unsigned long long off = (unsigned long long)__cvta_generic_to_shared(p);
    unsigned long long slice = L.shared_slice_words * linear_bid();
    unsigned *sites = L.shared_sites ? L.shared_sites + kSiteSlots * slice : nullptr;
    if (L.smem) {
      *loc = smem_window(off);
      if (!L.smem_sites && sites)   // the slots in global memory, per block, from the window's floor on
        loc->sites = sites - kSiteSlots * (L.shared_floor >> L.granularity_shift);
      return true;
    }
    *loc = Location{L.shared_shadow + slice, sites, (long long)off, L.shared_slice_words << L.granularity_shift,
                    kShared, kNoBuffer, 0};
    return true;
  }
#elif defined(CUDAEMU)
  size_t off;
  if (::cudaemu::shared_offset(p, &off) || ::cudaemu::shared_guard_offset(p, &off)) {
    unsigned long long slice = L.shared_slice_words * ::cudaemu::detail::g_slot;
    *loc = Location{L.shared_shadow + slice, L.shared_sites ? L.shared_sites + kSiteSlots * slice : nullptr, (long long)off,
                    (unsigned long long)::cudaemu::detail::kSharedWindow, kShared, kNoBuffer, 0};
    return true;
  }
#endif
  unsigned long long a = (unsigned long long)p;
  unsigned lo = 0, hi = L.nranges;
  while (lo < hi) {  // last range starting (redzone included) at or before a
    unsigned mid = (lo + hi) / 2;
    if (L.ranges[mid].base - L.ranges[mid].redzone <= a) lo = mid + 1; else hi = mid;
  }
  if (lo == 0) return false;
  const Range &r = L.ranges[lo - 1];
  if (a >= r.base + r.size + r.redzone) return false;
  if (r.kind == kToolMemory) {  // no buffer of the program: an access here is out of bounds
    *loc = Location{nullptr, nullptr, -1, 0, kGlobal, kNoBuffer, 0};
    return true;
  }
  *loc = Location{r.shadow, r.sites, (long long)(a - r.base), r.size, kGlobal, r.id, 0};
  return true;
}

// Out of line on the device: see check()
#if defined(__CUDA_ARCH__)
#define HIRACE_OUT_OF_LINE __noinline__
#else
#define HIRACE_OUT_OF_LINE
#endif

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

// (HIRACE_BENCH_CUT: see check)
#ifndef HIRACE_BENCH_CUT
#define HIRACE_BENCH_CUT 0
#endif

// The shadow update and site slots of the words an access covers, [offset, offset + size) of its
// buffer or shared window (`shadow`, `sites`: the window's or buffer's; `sites` null without slots),
// by thread `tid` of block `bid` with clocks `clk`. Inlined where the check knows the memory space.
CCTK_D inline void check_words(unsigned long long *shadow, unsigned *sites, long long offset, unsigned size,
                               unsigned site, fsm::Access kind, bool then_write, unsigned tid, unsigned bid,
                               const unsigned *clk, unsigned space, unsigned buffer) {
  const LaunchState &L = g_launch;
  ThreadCtx c{tid, L.block_base + bid, clk[0], clk[1], 32, L.block_base};
  unsigned long long first = (unsigned long long)offset >> L.granularity_shift;
  unsigned long long last = ((unsigned long long)offset + (size ? size : 1) - 1) >> L.granularity_shift;
  unsigned me = ((L.site_base + bid) << kSiteTidBits) | c.tid;
  const unsigned first_me = L.site_base << kSiteTidBits;   // a slot thread below it: an earlier launch's
  for (unsigned pass = 0; pass < (then_write ? 2u : 1u); ++pass) {
    if (pass) kind = fsm::kWrite;
    const unsigned mine = site_word(site, kind, c);
    for (unsigned long long w = first; w <= last; ++w) {
      ShadowWord prior;
      SiteSlots *e = (L.prior_sites && sites) ? reinterpret_cast<SiteSlots *>(sites) + w : nullptr;
      SiteSlots slot = e ? *e : SiteSlots{~0u, ~0u, ~0u, ~0u};   // one 16-byte load
      bool last_live = slot.last_thread != ~0u && slot.last_thread >= first_me;
      if (HIRACE_BENCH_CUT != 3 && update(&shadow[w], c, kind, &prior)) {
        RaceRecord r{site, ~0u, c.tid, bid, prior.tid(), prior.bid() - L.block_base,
                     prior.state(), unsigned(kind), space, buffer, w << L.granularity_shift, 1u, L.slot};
        if (e) {   // the slots' access by the thread the record names, else another that can race with this one
          unsigned named = ((prior.bid() - L.block_base + L.site_base) << kSiteTidBits) | prior.tid();
          bool last_ok = may_race(slot.last_thread, slot.last_site, me, mine, first_me, c.warp_size);
          bool other_ok = may_race(slot.other_thread, slot.other_site, me, mine, first_me, c.warp_size);
          bool use_last = last_ok && (slot.last_thread == named || !(other_ok && slot.other_thread == named));
          if (use_last || other_ok) {
            unsigned t = use_last ? slot.last_thread : slot.other_thread;
            r.prior_site = site_id(use_last ? slot.last_site : slot.other_site);
            r.prior_tid = t & ((1u << kSiteTidBits) - 1);
            r.prior_bid = (t >> kSiteTidBits) - L.site_base;
          }
        }
        log_race(r);
      }
      // The slots change only when what they say changes. A read at the site of the last access, by
      // a third thread while the slots already name two others of this launch, keeps them (a gather
      // that many threads read at one site would otherwise rewrite the word's slots at every access:
      // spmv 48x against 18x): any later race still finds another thread's access of this launch there.
      bool other_live = slot.other_thread != ~0u && slot.other_thread >= first_me && slot.other_thread != me;
      if (e && !(kind == fsm::kRead && last_live && other_live && slot.last_site == mine && slot.last_thread != me)) {
        if (slot.last_thread != me)
          *e = last_live ? SiteSlots{mine, me, slot.last_site, slot.last_thread} : SiteSlots{mine, me, ~0u, ~0u};
        else if (slot.last_site != mine)
          e->last_site = mine;
      }
    }
#if defined(CUDAEMU)
    ::cudaemu::maybe_yield();
#endif
  }
}

// The check every instrumented access makes before it happens. Out of line on the device: an
// unrolled loop of many accesses would otherwise carry a copy per access, more code than the
// instruction cache holds (a 32x32 tiled matrix product ran 58 times slower inlined on an H100).
// Benchmarks only (bench/hirace_overhead/variants.py): stop the check early, to measure what its
// parts cost. 1: after the enabled test; 2: after locating the access; 3: everything but the shadow
// update; 4: own_index taken as true without its test; 5: no "off" state copied after a launch
// (host.h after_launch); 6: the launch state copied at the first launch only (wrong verdicts: the
// floor of a launch's cost); 7: a quiet access that would take the whole check traps instead (what
// the out-of-line call costs the quiet paths); 8: it counts and diverts itself, inline (a call-free
// slow path); 9: as 7, with a call of the check that never runs at each block's entry (what the
// registers the out-of-line check takes cost, without its calls at the sites); 10: the quiet paths call
// a small out-of-line function of two arguments that traps (a compact slow path); 11: quiet reads
// (rd_bounds, rd_param) give values, not addresses (see QuietRead); 12: the quiet paths call the
// check from inline assembly (see hidden_check); 20: block_entry leaves the block's area as it finds
// it (what clearing it costs); 34: a quiet version's failed bounds test traps, and its journal is never
// logged (q::outside: what the journal costs). 0 (the default): the whole check.
// The check every instrumented access makes before it happens. `base` and `bytes` bound the
// access when the site knows them: a declared array [base, base + bytes) (kDynamicShared: the
// launch's dynamic shared memory), or (bytes 0) the buffer that the pointer `base` points into.
// Returns false when the access lies outside its buffer: it is reported, not checked as a race,
// and must not happen.
// `then_write`: a read-modify-write, checked as its read and then its write in one call (one locating).
HIRACE_OUT_OF_LINE CCTK_D inline bool check(const void *p, unsigned size, unsigned site, fsm::Access kind,
                         const volatile void *base = nullptr, unsigned long long bytes = 0,
                         bool then_write = false) {
  const LaunchState &L = g_launch;
  if (!L.enabled || HIRACE_BENCH_CUT == 1) return true;
  unsigned tid = linear_tid(), bid = linear_bid();
  if (bid < L.bid_lo || bid > L.bid_hi || tid < L.tid_lo || tid > L.tid_hi) return true;
#if defined(__CUDA_ARCH__)
  // A declared shared array, in a launch whose blocks keep their clocks, shadow and slots in shared
  // memory (smem mode): the general path below, with nothing to locate and every address a shared
  // one, so that the compiler reads and updates them with shared-memory instructions (most accesses
  // of tiled kernels: nw, lud, matrixMul). An access outside the array takes the general path,
  // which reports it.
  if (base && bytes && L.bounds && L.smem && (L.smem_sites || !L.prior_sites) && __isShared((const void *)base)) {
    unsigned long long n = bytes == kDynamicShared ? L.dynamic_shared : bytes;
    long long delta = (long long)((const char *)p - (const char *)base);
    Location loc = smem_window(__cvta_generic_to_shared(p));
    if (delta >= 0 && (unsigned long long)delta + size <= n && inside(loc, size)) {
      if (HIRACE_BENCH_CUT == 2) return true;
      check_words(loc.shadow, loc.sites, loc.offset, size, site, kind, then_write, tid, bid, shared_area() + 2 * tid,
                  loc.space, loc.buffer);
      return true;
    }
  }
#endif
  Location loc;
  bool where;
  if (!L.bounds) base = nullptr;
  long long delta = base ? (long long)((const char *)p - (const char *)base) : 0;
  if (base && bytes) {  // a declared array: its bounds, whatever lies around it
    if (bytes == kDynamicShared) bytes = L.dynamic_shared;
    if (delta < 0 || (unsigned long long)delta + size > bytes) {
      where = locate((const void *)base, &loc);
      log_out_of_bounds(MemRecord{site, tid, bid, unsigned(kind), where ? loc.space : unsigned(kGlobal), kNoBuffer,
                                  delta, bytes, size, 1u, L.slot});
      return false;
    }
    where = locate(p, &loc);
  } else if (base && locate((const void *)base, &loc) && inside(loc, 0) && loc.buffer != kNoBuffer) {
    where = true;  // the buffer the pointer points into bounds the access
    loc.offset += delta;
  } else {
    where = locate(p, &loc);
  }
  if (!where) return true;  // not monitored (host memory, constant, local)
  if (!inside(loc, size)) {
    if (!L.bounds) return true;
    log_out_of_bounds(MemRecord{site, tid, bid, unsigned(kind), loc.space, loc.buffer,
                                loc.shadow ? loc.offset : (long long)(unsigned long long)p, loc.limit, size, 1u, L.slot});
    return false;
  }
  if (HIRACE_BENCH_CUT == 2) return true;
  check_words(loc.shadow, loc.sites, loc.offset, size, site, kind, then_write, tid, bid, thread_clocks(), loc.space,
              loc.buffer);
  return true;
}

#if HIRACE_BENCH_CUT == 9 && defined(__CUDA_ARCH__)
// (cut 9: a call of the check that never runs, at each block's entry: the quiet paths trap as in
// cut 7, but the kernel keeps the registers the out-of-line check takes)
CCTK_D inline void bench_never_called_check() {
  if (g_launch.enabled == 0x5eedu) check(nullptr, 4, 0, fsm::kRead);
}
#endif

// Where an access that must not happen goes instead (accesses larger than a sink go ahead).
template <class T> CCTK_D inline T *diverted(T *p, void *sink) {
  return sizeof(T) <= kSinkBytes ? (T *)sink : p;
}
#if HIRACE_BENCH_CUT == 10 && defined(__CUDA_ARCH__)
// (cut 10: an out-of-line call with two arguments, which traps when it runs: what a compact slow path
// would cost the sites)
__noinline__ __device__ bool bench_slow_call(const void *p, unsigned site) {
  if (g_launch.enabled) __trap();
  return p != nullptr && site != 0;
}
#endif
#if HIRACE_BENCH_CUT == 12 && defined(__CUDA_ARCH__)
// (cut 12: the whole check called from inline assembly, which the compiler sees no memory effect
// in: the program's own loads and stores move across the quiet sites as if they were not there)
extern "C" __device__ inline __noinline__ unsigned hirace_hidden_check(unsigned long long p, unsigned size,
                                                                      unsigned site, unsigned kind,
                                                                      unsigned long long base,
                                                                      unsigned long long bytes, unsigned then_write) {
  return check((const void *)p, size, site, fsm::Access(kind), (const volatile void *)base, bytes, then_write != 0)
             ? 1u : 0u;
}
CCTK_D inline void bench_never_called_check() {   // (its arguments unknown: the function keeps its parameters)
  const LaunchState &L = g_launch;
  if (L.enabled == 0x5eedu &&
      hirace_hidden_check((unsigned long long)L.sink_read, L.log_cap, L.slot, L.nranges, (unsigned long long)L.sink_write,
                          L.dynamic_shared, L.smem))
    note_wrapped();
}
__device__ inline bool hidden_check(const void *p, unsigned size, unsigned site, fsm::Access kind,
                                    const volatile void *base, unsigned long long bytes, bool then_write) {
  unsigned ok;
  asm volatile(
      "{\n\t.param .b64 hp0;\n\t.param .b32 hp1;\n\t.param .b32 hp2;\n\t.param .b32 hp3;\n\t"
      ".param .b64 hp4;\n\t.param .b64 hp5;\n\t.param .b32 hp6;\n\t.param .b32 hret;\n\t"
      "st.param.b64 [hp0], %1;\n\tst.param.b32 [hp1], %2;\n\tst.param.b32 [hp2], %3;\n\t"
      "st.param.b32 [hp3], %4;\n\tst.param.b64 [hp4], %5;\n\tst.param.b64 [hp5], %6;\n\t"
      "st.param.b32 [hp6], %7;\n\t"
      "call (hret), hirace_hidden_check, (hp0, hp1, hp2, hp3, hp4, hp5, hp6);\n\t"
      "ld.param.b32 %0, [hret];\n\t}"
      : "=r"(ok)
      : "l"((unsigned long long)p), "r"(size), "r"(site), "r"(unsigned(kind)), "l"((unsigned long long)base),
        "l"(bytes), "r"(then_write ? 1u : 0u));
  return ok != 0;
}
#endif
// The whole check of an access whose quiet test failed, and what happens to it (HIRACE_BENCH_CUT 7
// to 12: the benchmarks' stand-ins, see check).
template <class T> CCTK_D inline T *quiet_slow(T *p, unsigned site, fsm::Access kind, void *sink,
                                               const volatile void *base, unsigned long long bytes,
                                               bool then_write = false) {
#if (HIRACE_BENCH_CUT == 7 || HIRACE_BENCH_CUT == 9) && defined(__CUDA_ARCH__)
  __trap();
  return p;
#elif HIRACE_BENCH_CUT == 8 && defined(__CUDA_ARCH__)
  atomicAdd(g_launch.mem_count, 1u);
  return diverted(p, g_launch.sink_write);
#elif HIRACE_BENCH_CUT == 10 && defined(__CUDA_ARCH__)
  return bench_slow_call(p, site) ? p : diverted(p, g_launch.sink_write);
#elif HIRACE_BENCH_CUT == 12 && defined(__CUDA_ARCH__)
  return hidden_check(p, sizeof(T), site, kind, base, bytes, then_write) ? p : diverted(p, sink);
#else
  return check((const void *)p, sizeof(T), site, kind, base, bytes, then_write) ? p : diverted(p, sink);
#endif
}

// The access itself when the check lets it happen, else its diversion.
template <class T> CCTK_D inline T *checked(T *p, unsigned site, fsm::Access kind, void *sink,
                                            const volatile void *base, unsigned long long bytes) {
  return check((const void *)p, sizeof(T), site, kind, base, bytes) ? p : diverted(p, sink);
}

// Instrumented expressions: `(*::hirace::rd(&(a[i]), 12u))`, with the access's bounds where the
// site knows them: `(*::hirace::rd(&(a[i]), 12u, a))`, `(*::hirace::rd(&(s[i]), 3u, s, sizeof(s)))`.
template <class T> CCTK_D inline T *rd(T *p, unsigned site, const volatile void *base = nullptr,
                                       unsigned long long bytes = 0) {
  return checked(p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
// A read of a shared array that no write to it shares a barrier interval with (instrument/intervals.py):
// it cannot race, so only its bounds are checked, inline; one outside them takes the whole check,
// which reports it and diverts it.
template <class T> CCTK_D inline bool in_declared(T *p, const volatile void *base, unsigned long long bytes) {
  if (bytes == kDynamicShared) bytes = g_launch.dynamic_shared;
  long long delta = (long long)((const char *)p - (const char *)base);
  return delta >= 0 && (unsigned long long)delta + sizeof(T) <= bytes;
}
#if HIRACE_BENCH_CUT == 11 && defined(__CUDA_ARCH__)
// (cut 11: a quiet read yields its value: read through the program's own address where the test
// holds, and by an out-of-line function that checks and reads where it does not)
template <class T> struct QuietRead {
  T v;
  CCTK_D T operator*() const { return v; }
};
template <class T> __noinline__ __device__ T read_checked(T *p, unsigned site, const volatile void *base,
                                                        unsigned long long bytes) {
  return *checked(p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
template <class T> CCTK_D inline QuietRead<T> rd_bounds(T *p, unsigned site, const volatile void *base, unsigned long long bytes) {
  return QuietRead<T>{in_declared(p, base, bytes) ? *p : read_checked(p, site, base, bytes)};
}
#else
template <class T> CCTK_D inline T *rd_bounds(T *p, unsigned site, const volatile void *base, unsigned long long bytes) {
  if (in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
#endif
// An atomic on a shared array in a barrier interval where every access to that array is an atomic
// (instrument/intervals.py): atomics never race with each other, so only its bounds are checked.
template <class T> CCTK_D inline T *atomic_block_bounds(T *p, unsigned site, const volatile void *base,
                                                        unsigned long long bytes) {
  if (in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kBlockAtomic, g_launch.sink_write, base, bytes);
}
template <class T> CCTK_D inline T *atomic_device_bounds(T *p, unsigned site, const volatile void *base,
                                                         unsigned long long bytes) {
  if (in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kDeviceAtomic, g_launch.sink_write, base, bytes);
}
// A write of each thread's own word of a shared array, in a barrier interval where no thread reads
// the array and every write to it has this form (instrument/intervals.py): `own` when the block
// fits the array, so no two threads share the word; it then races with nothing and lies in bounds.
template <class T> CCTK_D inline T *wr_private(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                               bool own) {
  return own ? p : quiet_slow(p, site, fsm::kWrite, g_launch.sink_write, base, bytes);
}
// A read of each thread's own word (or a read-modify-write of it) in a barrier interval where only
// its thread writes that word (instrument/intervals.py): `own` as for wr_private.
template <class T> CCTK_D inline T *rd_private(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                               bool own) {
  return own ? p : quiet_slow(p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
template <class T> CCTK_D inline T *rmw_private(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                                bool own) {
  if (own) return p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_write, base, bytes, true);
}
// An access of a declared shared array whose index keeps every other thread's access in its
// barrier interval off its word (instrument/apart.py), where the launch's block is `shaped` as the
// proof needs: its bounds are checked; otherwise the whole check.
template <class T> CCTK_D inline T *rd_apart(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                             bool shaped) {
  if (shaped && in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
template <class T> CCTK_D inline T *wr_apart(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                             bool shaped) {
  if (shaped && in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kWrite, g_launch.sink_write, base, bytes);
}
template <class T> CCTK_D inline T *rmw_apart(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                              bool shaped) {
  if (shaped && in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_write, base, bytes, true);
}
// A read through the kernel's read-only parameter `base` (the `bit`-th): in a launch where that
// parameter is quiet, only the bounds of its buffer are checked, inline; otherwise the whole check.
#if HIRACE_BENCH_CUT == 11 && defined(__CUDA_ARCH__)
template <class T> CCTK_D inline QuietRead<T> rd_param(T *p, unsigned site, const volatile void *base, unsigned bit) {
  const LaunchState &L = g_launch;
  unsigned long long a = (unsigned long long)p;
  bool ok = (L.quiet_params >> bit & 1u) && a >= L.quiet_lo[bit] && a + sizeof(T) <= L.quiet_hi[bit];
  return QuietRead<T>{ok ? *p : read_checked(p, site, base, 0)};
}
#else
template <class T> CCTK_D inline T *rd_param(T *p, unsigned site, const volatile void *base, unsigned bit) {
  const LaunchState &L = g_launch;
  unsigned long long a = (unsigned long long)p;
  if ((L.quiet_params >> bit & 1u) && a >= L.quiet_lo[bit] && a + sizeof(T) <= L.quiet_hi[bit]) return p;
  return quiet_slow(p, site, fsm::kRead, L.sink_read, base, 0);
}
#endif
// Is c_tx * threadIdx.x + ... + c_bz * blockIdx.z a different number for each thread of this
// launch, within a range narrower than 2^31 (so that the program's own arithmetic, modulo 2^32 or
// 2^64, keeps the numbers apart whatever the offset)? Mixed radix: taking the coordinates that vary
// (extent above 1) by |c|, each |c| exceeds the largest sum the smaller ones reach (ties ordered by
// position). Computed once per thread at the kernel's entry, in registers (constant indices only:
// a sort with computed indices put its arrays in local memory and cost srad_v2 ten times its own
// instructions). The offset is the same for every thread; it is taken only to evaluate it as the
// program writes it.
// (own_index_of: the test for the launch shape `block`, `grid`; on the host too, for quiet versions)
CCTK_HD inline bool own_index_of(dim3 block, dim3 grid, long long c_tx, long long c_ty, long long c_tz,
                                 long long c_bx, long long c_by, long long c_bz) {
  const long long c[6] = {c_tx, c_ty, c_tz, c_bx, c_by, c_bz};
  const long long n[6] = {block.x, block.y, block.z, grid.x, grid.y, grid.z};
  long long a[6], span[6];   // |c|, and the range a coordinate's term spans (0 where it does not vary)
  bool ok = true;
#pragma unroll
  for (int i = 0; i < 6; ++i) {
    a[i] = c[i] < 0 ? -c[i] : c[i];
    bool varies = n[i] > 1;
    ok = ok && (!varies || (a[i] != 0 && a[i] < (1ll << 31)));
    span[i] = varies && a[i] < (1ll << 31) ? a[i] * (n[i] - 1) : 0;
    ok = ok && span[i] < (1ll << 31);
  }
  long long total = 0;
#pragma unroll
  for (int i = 0; i < 6; ++i) {
    long long below = 0;
#pragma unroll
    for (int j = 0; j < 6; ++j)
      if (j != i && (a[j] < a[i] || (a[j] == a[i] && j < i))) below += span[j];
    ok = ok && (n[i] <= 1 || a[i] > below);
    total += span[i];
  }
  return ok && total < (1ll << 31);
}
CCTK_D inline bool own_index(long long c_tx, long long c_ty, long long c_tz, long long c_bx, long long c_by,
                             long long c_bz, long long) {
  if (HIRACE_BENCH_CUT == 4) return true;   // benchmarks only: what the test costs
  return own_index_of(dim3(blockDim.x, blockDim.y, blockDim.z), dim3(gridDim.x, gridDim.y, gridDim.z), c_tx, c_ty,
                      c_tz, c_bx, c_by, c_bz);
}
// Do the words of a shared array that lane + offset writes reach lie apart and inside the array?
// Each (offset, cap) pair: the threads whose lane index is below cap (and the block's extent n)
// write word offset + lane. Evaluated where such a write is (instrument/tree_forms.py offset_form).
template <class... T> CCTK_HD inline bool lanes_apart(long long n, long long size, T... pairs) {
  const long long v[] = {(long long)pairs...};
  constexpr int k = int(sizeof...(T)) / 2;
  bool ok = true;
#pragma unroll
  for (int i = 0; i < k; ++i) {
    long long lo = v[2 * i], cnt = v[2 * i + 1] < n ? v[2 * i + 1] : n;
    if (cnt <= 0) continue;
    ok = ok && lo >= 0 && lo + cnt <= size;
#pragma unroll
    for (int j = 0; j < i; ++j) {
      long long lo2 = v[2 * j], cnt2 = v[2 * j + 1] < n ? v[2 * j + 1] : n;
      ok = ok && (cnt2 <= 0 || lo == lo2 || lo + cnt <= lo2 || lo2 + cnt2 <= lo);   // (one offset: one thread a word)
    }
  }
  return ok;
}
// An access through an own parameter `base` (the `bit`-th quiet candidate: every access to it in
// the kernel has one index, which gives each thread its own element when `own`): in a launch where
// the parameter is quiet and the index is own, only the bounds of its buffer are checked, inline.
template <class T> CCTK_D inline bool own_quiet(T *p, unsigned bit, bool own) {
  const LaunchState &L = g_launch;
  unsigned long long a = (unsigned long long)p;
  return own && (L.quiet_params >> bit & 1u) && a >= L.quiet_lo[bit] && a + sizeof(T) <= L.quiet_hi[bit];
}
template <class T> CCTK_D inline T *rd_own(T *p, unsigned site, const volatile void *base, unsigned bit, bool own) {
  return own_quiet(p, bit, own) ? p : quiet_slow(p, site, fsm::kRead, g_launch.sink_read, base, 0);
}
template <class T> CCTK_D inline T *wr_own(T *p, unsigned site, const volatile void *base, unsigned bit, bool own) {
  return own_quiet(p, bit, own) ? p : quiet_slow(p, site, fsm::kWrite, g_launch.sink_write, base, 0);
}
template <class T> CCTK_D inline T *rmw_own(T *p, unsigned site, const volatile void *base, unsigned bit, bool own) {
  if (own_quiet(p, bit, own)) return p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_write, base, 0, true);
}
// A device-scope atomic through the kernel's atomic parameter `base` (the `bit`-th quiet candidate:
// only such atomics reach it): in a launch where the parameter is quiet, only its bounds are checked.
template <class T> CCTK_D inline T *atomic_param(T *p, unsigned site, const volatile void *base, unsigned bit) {
  if (own_quiet(p, bit, true)) return p;
  return quiet_slow(p, site, fsm::kDeviceAtomic, g_launch.sink_write, base, 0);
}
template <class T> CCTK_D inline T *wr(T *p, unsigned site, const volatile void *base = nullptr,
                                       unsigned long long bytes = 0) {
  return checked(p, site, fsm::kWrite, g_launch.sink_write, base, bytes);
}
// The bytes memcpy/memmove/memset in device code touch, checked as one access each of that many
// bytes (hirace/planner.py _plan_ranges): the size to use, 0 when a range is out of bounds (then
// nothing is copied or set, as an out-of-bounds access does not happen).
CCTK_D inline size_t copy_range(const volatile void *d, const volatile void *s, size_t n, unsigned dsite,
                                unsigned ssite) {
  if (n == 0) return 0;
  bool ok = check((const void *)s, unsigned(n), ssite, fsm::kRead);
  ok = check((const void *)d, unsigned(n), dsite, fsm::kWrite) && ok;
  return ok ? n : 0;
}
CCTK_D inline size_t set_range(const volatile void *d, size_t n, unsigned dsite) {
  return n == 0 || check((const void *)d, unsigned(n), dsite, fsm::kWrite) ? n : 0;
}
template <class T> CCTK_D inline T *rmw(T *p, unsigned site, const volatile void *base = nullptr,
                                        unsigned long long bytes = 0) {
  return check((const void *)p, sizeof(T), site, fsm::kRead, base, bytes, true) ? p : diverted(p, g_launch.sink_write);
}
template <class T> CCTK_D inline T *atomic_block(T *p, unsigned site, const volatile void *base = nullptr,
                                                 unsigned long long bytes = 0) {
  return checked(p, site, fsm::kBlockAtomic, g_launch.sink_write, base, bytes);
}
template <class T> CCTK_D inline T *atomic_device(T *p, unsigned site, const volatile void *base = nullptr,
                                                  unsigned long long bytes = 0) {
  return checked(p, site, fsm::kDeviceAtomic, g_launch.sink_write, base, bytes);
}

// Accesses in __host__ __device__ functions (hirace/planner.py): checked where the function runs in a
// kernel; the host's own calls (its pass of nvcc, or the cpu backend outside a launch) touch no
// kernel's memory, and go unchecked.
#if defined(__CUDA_ARCH__)
#define HIRACE_IN_KERNEL true
#elif defined(CUDAEMU)
#define HIRACE_IN_KERNEL (::cudaemu::detail::g_cur != nullptr)
#else
#define HIRACE_IN_KERNEL false
#endif
#if defined(__CUDA_ARCH__) || defined(CUDAEMU)
#define HIRACE_HD_CHECK(fn) return HIRACE_IN_KERNEL ? fn(p, site, base, bytes) : p
#else
#define HIRACE_HD_CHECK(fn) return (void)site, (void)base, (void)bytes, p
#endif
template <class T> CCTK_HD inline T *hd_rd(T *p, unsigned site, const volatile void *base = nullptr,
                                          unsigned long long bytes = 0) {
  HIRACE_HD_CHECK(rd);
}
template <class T> CCTK_HD inline T *hd_wr(T *p, unsigned site, const volatile void *base = nullptr,
                                          unsigned long long bytes = 0) {
  HIRACE_HD_CHECK(wr);
}
template <class T> CCTK_HD inline T *hd_rmw(T *p, unsigned site, const volatile void *base = nullptr,
                                           unsigned long long bytes = 0) {
  HIRACE_HD_CHECK(rmw);
}

// A call of a CUB block primitive (hirace/planner.py), as the library uses the TempStorage `s` the
// primitive was made from: the block's first thread writes it before the block synchronises inside
// the call (made before the call, when the Collective is constructed), and every thread reads it
// after (when the Collective is destroyed, at the end of the call's full expression). Two uses
// without a __syncthreads between them then race, as CUB documents; so do the user's own
// accesses to that storage (a union reused for another primitive) without one. Each thread reads
// one word of it, the first thread writes all. A storage of one byte is the library's empty one.
struct Collective {
  const char *p;
  unsigned n, site;
  CCTK_D Collective(const volatile void *s, unsigned long long bytes, unsigned sid)
      : p((const char *)s), n(unsigned(bytes)), site(sid) {
    if (n > 1 && linear_tid() == 0) check(p, n, site, fsm::kWrite);
  }
  CCTK_D ~Collective() {
    if (n <= 1) return;
    after_block_barrier();
    unsigned word = n >= 4 ? 4 : n, words = n / word;
    check(p + (linear_tid() % words) * word, word, site, fsm::kRead);
  }
  Collective(const Collective &) = delete;
  Collective &operator=(const Collective &) = delete;
};

// libcu++'s atomics (cuda::atomic_ref, cuda::atomic and their cuda::std:: forms; hirace/planner.py):
// an operation is an atomic access of the atomic's scope at its address (a plain access for
// thread_scope_thread, which is atomic to its own thread only), checked wherever the function
// runs in a kernel: `(*::hirace::lib_device(&(flag), 7u)).fetch_add(1)`.
#define HIRACE_LIB_CHECK(name, fn)                                                         \
  template <class T> CCTK_HD inline T *name(T *p, unsigned site) {                          \
    const volatile void *base = nullptr;                                                   \
    unsigned long long bytes = 0;                                                          \
    HIRACE_HD_CHECK(fn);                                                                   \
  }
HIRACE_LIB_CHECK(lib_block, atomic_block)
HIRACE_LIB_CHECK(lib_device, atomic_device)
HIRACE_LIB_CHECK(lib_rd, rd)
HIRACE_LIB_CHECK(lib_wr, wr)
HIRACE_LIB_CHECK(lib_rmw, rmw)
#undef HIRACE_LIB_CHECK
// An atomic_ref keeps the address it refers to and nothing else (the static_assert holds that):
// its operations are checked at that address, through a copy that refers to the diverted word
// where the check diverts: `::hirace::lib_device_ref(r, 7u).fetch_add(1)`.
template <class R> CCTK_HD inline typename R::value_type *referent(const R &r) {
  static_assert(sizeof(R) == sizeof(typename R::value_type *),
                "hirace: this atomic_ref keeps more than its address; please report it with the CCCL version");
  typename R::value_type *p;
  memcpy((void *)&p, (const void *)&r, sizeof p);
  return p;
}
#define HIRACE_LIB_REF(name) \
  template <class R> CCTK_HD inline R name##_ref(const R &r, unsigned site) { return R(*name(referent(r), site)); }
HIRACE_LIB_REF(lib_block)
HIRACE_LIB_REF(lib_device)
HIRACE_LIB_REF(lib_rd)
HIRACE_LIB_REF(lib_wr)
HIRACE_LIB_REF(lib_rmw)
#undef HIRACE_LIB_REF
#undef HIRACE_HD_CHECK
#undef HIRACE_IN_KERNEL



// The quiet version of a kernel (hirace/planner.py, quiet_versions): a kernel whose every site is
// quiet gets a second version, launched in its place where the host finds every site's launch
// condition holding (own indices, block shapes, quiet parameters; the kernel selected, no thread
// filter: host.h before_launch). There no access can race, and one whose bounds test fails is out
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
#if HIRACE_BENCH_CUT == 34
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
#if HIRACE_BENCH_CUT == 34 && defined(__CUDA_ARCH__)   // (benchmarks only: the version's floor)
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
  return in_param(p, bit) ? p : outside(j, p, site, fsm::kRead, g_launch.sink_read, base, 0);
}
template <class T> CCTK_D inline T *rd_own(Journal &j, T *p, unsigned site, const volatile void *base, unsigned bit, bool) {
  return in_param(p, bit) ? p : outside(j, p, site, fsm::kRead, g_launch.sink_read, base, 0);
}
template <class T> CCTK_D inline T *wr_own(Journal &j, T *p, unsigned site, const volatile void *base, unsigned bit, bool) {
  return in_param(p, bit) ? p : outside(j, p, site, fsm::kWrite, g_launch.sink_write, base, 0);
}
template <class T> CCTK_D inline T *rmw_own(Journal &j, T *p, unsigned site, const volatile void *base, unsigned bit, bool) {
  return in_param(p, bit) ? p : outside(j, p, site, fsm::kRead, g_launch.sink_write, base, 0);
}
template <class T> CCTK_D inline T *atomic_param(Journal &j, T *p, unsigned site, const volatile void *base, unsigned bit) {
  return in_param(p, bit) ? p : outside(j, p, site, fsm::kDeviceAtomic, g_launch.sink_write, base, 0);
}
// No clocks: nothing in a quiet version reads them
CCTK_D inline void block_entry(bool = false) {}
CCTK_D inline void after_block_barrier() {}
CCTK_D inline void after_warp_barrier() {}
CCTK_D inline void after_group_barrier(unsigned long long) {}
template <class T> CCTK_D inline T after_block_barrier_value(T v) { return v; }
CCTK_D inline bool own_index(long long, long long, long long, long long, long long, long long, long long) {
  return true;   // (the host found it so)
}
template <class... T> CCTK_D inline bool lanes_apart(T...) { return true; }

}  // namespace q

}  // namespace hirace

#endif  // HIRACE_RUNTIME_H
