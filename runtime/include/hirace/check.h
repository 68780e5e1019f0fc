// The check every instrumented access makes before it happens (`check`): the thread filter, the
// access located (locate.h) and bounded (an access out of bounds is logged and diverted to a sink,
// not checked), then the shadow update of each word it covers (update.h) with its prior-site slots,
// and a race logged (device_log.h); and the instrumented forms that call it: rd, wr, rmw, the atomics,
// device memcpy/memset ranges.
#ifndef HIRACE_CHECK_H
#define HIRACE_CHECK_H

#include <type_traits>

#include "bench_switches.h"
#include "cudacommon/protocol.h"
#include "device_log.h"
#include "locate.h"
#include "stream_footprint.h"
#if HIRACE_MEMORY_SYNC
#include "memory_sync_hooks.h"
#endif
#include "cpu_shared.h"
#include "turn_memo.h"

namespace hirace {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: this unit's configuration's own)

// Out of line on the device: see check()
#if defined(__CUDA_ARCH__)
#define HIRACE_OUT_OF_LINE __noinline__
#else
#define HIRACE_OUT_OF_LINE
#endif

// The shadow update and site slots of the words an access covers, words [first, last] of its buffer
// or shared window (`shadow`, `sites`: the window's or buffer's; `sites` null without slots), by
// thread `tid` of block `bid` with clocks `clk`; a race's record gives its word, which the host turns
// into bytes (host_readback.h: a buffer's words are its own, host_granularity.h; the words' width
// stays out of the check, where it cost pathfinder's kernel 44 bytes of spills). Inlined where the
// check knows the memory space.
HIRACE_PART CCTK_D inline void check_words(unsigned long long *shadow, unsigned *sites, unsigned long long first,
                               unsigned long long last, unsigned site, fsm::Access kind, bool then_write, unsigned tid, unsigned bid,
                               const unsigned *clk, unsigned space, unsigned buffer
#if HIRACE_MEMORY_SYNC   // (the launch's record of synchronisation through memory, where it follows the thread)
                               , const memsync::MemorySync *mem
#endif
                               ) {
  const LaunchState &L = g_launch;
  // blocks are numbered on past the grid's syncs the thread passed (BlockWord): what came before
  // one reads as an earlier launch's
#if HIRACE_GRID_SYNCS
  const unsigned epoch = BlockWord::grid_syncs(clk[0]) * (gridDim.x * gridDim.y * gridDim.z);
#else
  const unsigned epoch = 0;   // (no grid.sync() in the program's units: two registers fewer in every check)
#endif
  ThreadCtx c{tid, L.block_base + epoch + bid, BlockWord::count(clk[0]), clk[1], 32, L.block_base + epoch};
  unsigned me = ((L.site_base + epoch + bid) << kSiteTidBits) | c.tid;
  const unsigned first_me = (L.site_base + epoch) << kSiteTidBits;   // a slot thread below it: an earlier launch's
  for (unsigned pass = 0; pass < (then_write ? 2u : 1u); ++pass) {
    if (pass) kind = fsm::kWrite;
    const unsigned mine = site_word(site, kind, c);
    for (unsigned long long w = first; w <= last; ++w) {
      ShadowWord prior;
      SiteSlots *e = (L.prior_sites && sites) ? reinterpret_cast<SiteSlots *>(sites) + w : nullptr;
      SiteSlots slot = e ? *e : SiteSlots{~0u, ~0u, ~0u, ~0u};   // one 16-byte load
      bool last_live = slot.last_thread != ~0u && slot.last_thread >= first_me;
#if HIRACE_MEMORY_SYNC
      if (!HIRACE_BENCH_NO_SHADOW_UPDATE && update(&shadow[w], c, kind, &prior, mem, kFindSlot, &shadow[first])) {
#else
      if (!HIRACE_BENCH_NO_SHADOW_UPDATE && update(&shadow[w], c, kind, &prior)) {
#endif
        RaceRecord r{site, ~0u, c.tid, bid, prior.tid(), prior.bid() - c.base,
                     prior.state(), unsigned(kind), space, buffer, w, 1u, L.slot};
        if (e) {   // the slots' access by the thread the record names, else another that can race with this one
          unsigned named = ((prior.bid() - L.block_base + L.site_base) << kSiteTidBits) | prior.tid();   // (epoch too)
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
      // A read-modify-write's read leaves them to its write, which names the same thread next and
      // leaves them as the read would have (a histogram's `bin[d]++` rewrote its bin's slots twice).
      bool other_live = slot.other_thread != ~0u && slot.other_thread >= first_me && slot.other_thread != me;
      if (e && !(then_write && !pass) && !(kind == fsm::kRead && last_live && other_live && slot.last_site == mine && slot.last_thread != me)) {
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

// The access's words in the launch's footprint, in a program whose host order of operations is followed
// (HIRACE_STREAMS: stream_footprint.h; the stream relation compares launches by their footprints): every
// access of a buffer, checked or quiet, notes them (a proof that an access races with nothing in its
// launch says nothing of other launches and copies).
CCTK_D inline void note_footprint(const Location &loc, unsigned size, fsm::Access kind, bool then_write) {
#if defined(CUDAEMU) && HIRACE_STREAMS
  if (loc.space == kGlobal && loc.buffer != kNoBuffer)
    footprint::note(loc.buffer, loc.offset, size, unsigned(kind), then_write, loc.limit, loc.shift);
#elif HIRACE_STREAMS && defined(__CUDA_ARCH__)   // (the gpu backend's: in device memory, stream_footprint.h)
  const LaunchState &L = g_launch;
  if (loc.space == kGlobal && loc.buffer != kNoBuffer)
    footprint::note(L.footprints, L.footprint_touched, loc.buffer, loc.offset, size, unsigned(kind), then_write,
                    loc.limit, loc.shift);
#else
  (void)loc, (void)size, (void)kind, (void)then_write;
#endif
}
// A quiet access's footprint (quiet.h, quiet_version.h: an access through a quiet parameter, inside its
// buffer): located for its words, in a program whose host order of operations is followed; nothing in
// other builds. On the cpu backend a repeat of one of the launch's last two notes is skipped inline.
#if defined(CUDAEMU)
#define HIRACE_NOTE_OUT_OF_LINE [[gnu::noinline]]
#else
#define HIRACE_NOTE_OUT_OF_LINE HIRACE_OUT_OF_LINE
#endif
template <class T> HIRACE_NOTE_OUT_OF_LINE CCTK_D inline void quiet_footprint_noted(T *p, fsm::Access kind,
                                                                                   bool then_write, unsigned how,
                                                                                   unsigned bit) {
  Location loc;
  if (locate((const void *)p, &loc) && inside(loc, sizeof(T))) {
    note_footprint(loc, sizeof(T), kind, then_write);
#if defined(CUDAEMU) && HIRACE_STREAMS   // (the parameter's buffer: its later notes this launch set their bits inline)
    if (loc.space == kGlobal && loc.buffer != kNoBuffer)
      footprint::keep_param(bit, (unsigned long long)p - (unsigned long long)loc.offset, loc.buffer, loc.limit, loc.shift);
#endif
  }
#if defined(CUDAEMU) && HIRACE_STREAMS
  footprint::remember((const void *)p, how);
#else
  (void)how, (void)bit;
#endif
}
#undef HIRACE_NOTE_OUT_OF_LINE
// `bit`: the quiet candidate the access goes through, whose buffer holds it (quiet.h own_quiet, rd_param)
template <class T> CCTK_D inline void quiet_footprint(T *p, fsm::Access kind, bool then_write, unsigned bit) {
#if HIRACE_STREAMS
  if constexpr (std::is_array<T>::value) return;   // (as checked)
  if (!g_launch.enabled) return;
  const unsigned how = unsigned(kind) | unsigned(then_write) << 3 | unsigned(sizeof(T)) << 4;
#if defined(CUDAEMU)   // (one launch at a time: a repeat of one of the launch's last two notes adds nothing)
  if (footprint::noted_before((const void *)p, how)) return;
  if (bit < kQuietParams) {   // (the parameter's buffer, found by an earlier note of this launch: its bits inline)
    const footprint::ParamBits &b = footprint::g_param_bits[bit];
    const unsigned long long off = (unsigned long long)p - b.base;   // (below base: wraps far above limit)
    if (b.generation == footprint::g_generation && off < b.limit && off + sizeof(T) <= b.limit) {
      footprint::note_param(b, off, sizeof(T), unsigned(kind), then_write);
      footprint::remember((const void *)p, how);
      return;
    }
  }
#endif
  quiet_footprint_noted(p, kind, then_write, how, bit);
#else
  (void)p, (void)kind, (void)then_write, (void)bit;
#endif
}

// The check every instrumented access makes before it happens. Out of line on the device: an
// unrolled loop of many accesses would otherwise carry a copy per access, more code than the
// instruction cache holds (a 32x32 tiled matrix product ran 58 times slower inlined on an H100).
// (Benchmarks stop it early, to measure what its parts cost: bench_switches.h.)
// The check every instrumented access makes before it happens. `base` and `bytes` bound the
// access when the site knows them: a declared array [base, base + bytes) (kDynamicShared: the
// launch's dynamic shared memory), or (bytes 0) the buffer that the pointer `base` points into.
// Returns false when the access lies outside its buffer: it is reported, not checked as a race,
// and must not happen.
// `then_write`: a read-modify-write, checked as its read and then its write in one call (one locating).
// With HIRACE_MEMORY_SYNC, `how`: a strong access and what it implies (memory_sync_hooks.h memsync::How;
// 0: a plain access): the fence an ordered operation implies before it, then the check, then its part in
// the launch's record, right before the access happens.
#if HIRACE_MEMORY_SYNC
#define HIRACE_MEMORY_ARGS(mem) , mem
#define HIRACE_AFTER_CHECK(word) (how ? strong_access(word, how) : note_plain_access())
#else
#define HIRACE_MEMORY_ARGS(mem)
#define HIRACE_AFTER_CHECK(word) (void)0
#endif
HIRACE_OUT_OF_LINE CCTK_D inline bool check(const void *p, unsigned size, unsigned site, fsm::Access kind,
                         const volatile void *base = nullptr, unsigned long long bytes = 0,
                         bool then_write = false
#if HIRACE_MEMORY_SYNC
                         , unsigned how = 0
#endif
                         ) {
  const LaunchState &L = g_launch;
  if (!L.enabled || HIRACE_BENCH_STOP_AFTER_ENABLED) return true;
#if HIRACE_TURN_MEMO   // (the same check earlier in the thread's turn changed nothing: turn_memo.h)
  const void *const memo_base = (const void *)base;
  const unsigned long long memo_bytes = bytes, memo_how = turn_memo::how_of(size, unsigned(kind), then_write);
  turn_memo::Entry *const memo = turn_memo::look(p, site, memo_how, memo_base, memo_bytes);
  if (memo == &turn_memo::g_hit) {
    for (unsigned pass = 0; pass < (then_write ? 2u : 1u); ++pass) ::cudaemu::maybe_yield();   // (as check_words)
    return true;
  }
#define HIRACE_MEMO_BEFORE(shadow, words, sites) turn_memo::before(memo, shadow, words, sites)
#define HIRACE_MEMO_AFTER() turn_memo::after(memo)
#else
#define HIRACE_MEMO_BEFORE(shadow, words, sites) (void)0
#define HIRACE_MEMO_AFTER() (void)0
#endif
  unsigned tid = linear_tid(), bid = linear_bid();
  if (bid < L.bid_lo || bid > L.bid_hi || tid < L.tid_lo || tid > L.tid_hi) return true;
#if HIRACE_MEMORY_SYNC
  memsync::Thread me;
  const memsync::MemorySync *mem = memory_thread_now(&me) ? &g_memsync : nullptr;
  if (how) strong_before(how);
#endif
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
      if (HIRACE_BENCH_STOP_AFTER_LOCATE) return true;
#if HIRACE_MEMORY_SYNC
      kind = volatile_kind(kind, how, loc.space, &then_write);
#endif
      const unsigned long long first = (unsigned long long)loc.offset >> loc.shift;
      check_words(loc.shadow, loc.sites, first, ((unsigned long long)loc.offset + (size ? size : 1) - 1) >> loc.shift,
                  site, kind, then_write, tid, bid, shared_area() + 2 * tid, loc.space, loc.buffer HIRACE_MEMORY_ARGS(mem));
      HIRACE_AFTER_CHECK(loc.shadow + first);
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
  if (!where) {  // not monitored (host memory, constant, local)
    HIRACE_MEMO_BEFORE(nullptr, 0, nullptr);
    HIRACE_MEMO_AFTER();
    return true;
  }
  if (!inside(loc, size)) {
    if (!L.bounds) return true;
    log_out_of_bounds(MemRecord{site, tid, bid, unsigned(kind), loc.space, loc.buffer,
                                loc.shadow || loc.buffer != kNoBuffer ? loc.offset : (long long)(unsigned long long)p,
                                loc.limit, size, 1u, L.slot});
    return false;
  }
  if (HIRACE_BENCH_STOP_AFTER_LOCATE) return true;
  if (!loc.shadow) {   // a buffer no write of this launch reaches: no race there (host_buffer_state.h)
    note_footprint(loc, size, kind, then_write);   // (or one whose shadow did not fit: still in the footprint)
#if HIRACE_MEMORY_SYNC   // (its words keyed by their own address: no release of the launch names them)
    HIRACE_AFTER_CHECK(reinterpret_cast<unsigned long long *>((unsigned long long)p >> loc.shift << loc.shift));
#endif
    HIRACE_MEMO_BEFORE(nullptr, 0, nullptr);
    HIRACE_MEMO_AFTER();
    return true;
  }
#if HIRACE_MEMORY_SYNC
  kind = volatile_kind(kind, how, loc.space, &then_write);
#endif
#if defined(CUDAEMU)   // (the block's shared shadow is cleaned as it is used: cpu_shared.h)
  if (loc.space == kShared)
    cpu_shared::cover(loc.shadow, loc.sites, (unsigned long long)loc.offset >> L.granularity_shift,
                      ((unsigned long long)loc.offset + (size ? size : 1) - 1) >> L.granularity_shift,
                      L.shared_slice_words);
#endif
  note_footprint(loc, size, kind, then_write);   // (the launch's, for the stream relation: host_streams.h)
  const unsigned long long first = (unsigned long long)loc.offset >> loc.shift;
  const unsigned long long last = ((unsigned long long)loc.offset + (size ? size : 1) - 1) >> loc.shift;
  // (the memo compares the words and their slots before and after: the slots only where the check reads them)
  HIRACE_MEMO_BEFORE(loc.shadow + first, last - first + 1, L.prior_sites && loc.sites ? loc.sites + kSiteSlots * first : nullptr);
  check_words(loc.shadow, loc.sites, first, last, site, kind, then_write, tid, bid, thread_clocks(), loc.space,
              loc.buffer HIRACE_MEMORY_ARGS(mem));
  HIRACE_AFTER_CHECK(loc.shadow + first);
  HIRACE_MEMO_AFTER();
  return true;
}
#undef HIRACE_MEMORY_ARGS
#undef HIRACE_AFTER_CHECK
#undef HIRACE_MEMO_BEFORE
#undef HIRACE_MEMO_AFTER

// Where an access that must not happen goes instead (accesses larger than a sink go ahead).
template <class T> CCTK_D inline T *diverted(T *p, void *sink) {
  return sizeof(T) <= kSinkBytes ? (T *)sink : p;
}
// Does the access lie inside the declared array [base, base + bytes) (kDynamicShared: the launch's
// dynamic shared memory)? (The quiet forms test it inline: quiet.h.)
template <class T> CCTK_D inline bool in_declared(T *p, const volatile void *base, unsigned long long bytes) {
  if (bytes == kDynamicShared) bytes = g_launch.dynamic_shared;
  long long delta = (long long)((const char *)p - (const char *)base);
  return delta >= 0 && (unsigned long long)delta + sizeof(T) <= bytes;
}

// The access itself when the check lets it happen, else its diversion. An lvalue of array type is no access (a
// member of a template's type, `p->a` of `T *p` in `p->a[i]`, is taken for a load of a pointer where its type is
// not known: instantiated with an array member it names the array, whose element is the access).
template <class T> CCTK_D inline T *checked(T *p, unsigned site, fsm::Access kind, void *sink,
                                            const volatile void *base, unsigned long long bytes) {
  if constexpr (std::is_array<T>::value) return p;   // (an array names its elements, loads nothing)
  return check((const void *)p, sizeof(T), site, kind, base, bytes) ? p : diverted(p, sink);
}

// Instrumented expressions: `(*::hirace::rd(&(a[i]), 12u))`, with the access's bounds where the
// site knows them: `(*::hirace::rd(&(a[i]), 12u, a))`, `(*::hirace::rd(&(s[i]), 3u, s, sizeof(s)))`.
template <class T> CCTK_D inline T *rd(T *p, unsigned site, const volatile void *base = nullptr,
                                       unsigned long long bytes = 0) {
  return checked(p, site, fsm::kRead, g_launch.sink_read, base, bytes);
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

#if HIRACE_MEMORY_SYNC
// Strong accesses (docs/memory-model.md), in units that follow synchronisation through memory: a
// volatile access (PTX: relaxed, system scope) of global memory is checked as an atomic of device scope,
// so that strong accesses of one word do not race with each other while a plain one still does (of
// shared memory as a plain one: volatile_kind), and is a flag's load or store (`(*::hirace::vrd(&(flag[0]), 7u))`); an atomic of the CUDA API is a read-modify-write of its
// scope (atomicCAS: kCas), `atomicAdd(::hirace::strong_device(&a[i], 8u, 70u), 1)`. Spinning on them
// lets other blocks run on the cpu backend (cudaemu's spin evidence, as its atomics and fences give).
template <class T> CCTK_D inline T *strong_checked(T *p, unsigned site, fsm::Access kind, unsigned how,
                                                   const volatile void *base, unsigned long long bytes) {
  if constexpr (std::is_array<T>::value) return p;   // (as checked)
#if defined(CUDAEMU)
  ::cudaemu::detail::spin_point();
#endif
  return check((const void *)p, sizeof(T), site, kind, base, bytes, false, how) ? p
                                                                                : diverted(p, g_launch.sink_write);
}
template <class T> CCTK_D inline T *vrd(T *p, unsigned site, const volatile void *base = nullptr,
                                        unsigned long long bytes = 0) {
  return strong_checked(p, site, fsm::kDeviceAtomic, memsync::kStrong | memsync::kVolatile | memsync::kDeviceScope | memsync::kLoad, base,
                        bytes);
}
template <class T> CCTK_D inline T *vwr(T *p, unsigned site, const volatile void *base = nullptr,
                                        unsigned long long bytes = 0) {
  return strong_checked(p, site, fsm::kDeviceAtomic, memsync::kStrong | memsync::kVolatile | memsync::kDeviceScope | memsync::kStore, base,
                        bytes);
}
template <class T> CCTK_D inline T *vrmw(T *p, unsigned site, const volatile void *base = nullptr,
                                         unsigned long long bytes = 0) {
  return strong_checked(p, site, fsm::kDeviceAtomic,
                        memsync::kStrong | memsync::kVolatile | memsync::kDeviceScope | memsync::kLoad | memsync::kThenStore,
                        base, bytes);
}
template <class T> CCTK_D inline T *strong_block(T *p, unsigned site, unsigned how, const volatile void *base = nullptr,
                                                 unsigned long long bytes = 0) {
  return strong_checked(p, site, fsm::kBlockAtomic, how, base, bytes);
}
template <class T> CCTK_D inline T *strong_device(T *p, unsigned site, unsigned how, const volatile void *base = nullptr,
                                                  unsigned long long bytes = 0) {
  return strong_checked(p, site, fsm::kDeviceAtomic, how, base, bytes);
}
#endif

}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace hirace

#endif  // HIRACE_CHECK_H
