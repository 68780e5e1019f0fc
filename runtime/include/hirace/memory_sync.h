// Synchronisation through memory (docs/memory-model.md; HIRACE_MEMORY_SYNC): the record a launch keeps
// of fences, flags and what each block acquired, and the routines that keep it and that the shadow
// update asks (update.h). The specification is hirace/shadow_model.py (MemorySync, ShadowSim): each
// routine here mirrors the Python function it names, and the model checker replays its traces through
// them (hirace/harness/fsm_harness.cpp, `hirace verify-fsm --memory`).
#ifndef HIRACE_MEMORY_SYNC_H
#define HIRACE_MEMORY_SYNC_H

#include "config.h"
#include "fsm_table.h"

namespace hirace {
namespace memsync {

// Scopes: a block (__threadfence_block, atomicAdd_block), the device (__threadfence, atomicAdd; system
// scope counts as device). The narrower of two scopes is their AND. An acquire a barrier completes is at
// the read's own scope (kBarrier).
enum Scope : unsigned { kBlock = 0, kDevice = 1, kBarrier = 2 };
// Strong accesses of a flag: a read (atomic or volatile load), a write (atomic or volatile store), a
// read-modify-write (atomicAdd, atomicCAS, ...; the checked word's own atomics are these, of its slot)
enum Op : unsigned { kLoad = 0, kStore = 1, kRmw = 2 };

CCTK_HD constexpr unsigned narrower(unsigned a, unsigned b) { return a & b; }

// A thread as the record knows it: its block (in the launch: 0 .. blocks - 1), its index in the block,
// and its clocks (update.h ThreadCtx: the block clock, the warp clock with its fences' marks, the marks).
struct Thread {
  unsigned block, tid, bclk, wclk, marks;
};

// A point in a thread's program order, packed in one word: its index in the block (bits 0-9), its warp
// clock (bits 10-18) and block clock (bits 19-29) there. The clocks stop where a thread's clocks do
// (update.h BlockWord, WarpWord: 2^10 barriers, 2^8 warp-level syncs and fences), so they fit whole,
// the stopped value included; bits 30-31 are free for the words that use them.
struct Point {
  static constexpr unsigned kTidBits = ShadowWord::kTidBits, kWclkShift = kTidBits;
  static constexpr unsigned kWclkBits = ShadowWord::kWclkBits + 1, kBclkShift = kWclkShift + kWclkBits;
  static constexpr unsigned kBclkBits = ShadowWord::kBclkBits + 1;
  CCTK_HD static constexpr unsigned make(unsigned tid, unsigned bclk, unsigned wclk) {
    return (tid & ((1u << kTidBits) - 1)) | (wclk & ((1u << kWclkBits) - 1)) << kWclkShift |
           (bclk & ((1u << kBclkBits) - 1)) << kBclkShift;
  }
  CCTK_HD static constexpr unsigned tid(unsigned p) { return p & ((1u << kTidBits) - 1); }
  CCTK_HD static constexpr unsigned wclk(unsigned p) { return (p >> kWclkShift) & ((1u << kWclkBits) - 1); }
  CCTK_HD static constexpr unsigned bclk(unsigned p) { return (p >> kBclkShift) & ((1u << kBclkBits) - 1); }
};
static_assert(Point::kBclkShift + Point::kBclkBits <= 30, "a point leaves bits 30-31 free");

// Clock a is ahead of clock b (both of one thread, or of one block's threads), or a has stopped (the
// clock wrapped: comparisons no longer tell, and the access is taken as ordered, as update.h inputs
// does: no false alarm, the host warns)
CCTK_HD constexpr bool ahead(unsigned a, unsigned b, unsigned bits) { return a > b || (a >> bits) != 0; }
CCTK_HD constexpr bool bclk_ahead(unsigned a, unsigned b) { return ahead(a, b, ShadowWord::kBclkBits); }
CCTK_HD constexpr bool wclk_ahead(unsigned a, unsigned b) { return ahead(a, b, ShadowWord::kWclkBits); }
// a release stamp newer than another (stamps count on modulo 2^32; 0 is none)
CCTK_HD constexpr bool newer(unsigned a, unsigned b) { return int(a - b) > 0; }

// A release of some block, as a flag's value carries it or as a block learnt it (shadow_model.Entry,
// Known). 16 bytes: one vector access on the device.
struct alignas(16) Entry {
  static constexpr unsigned kAcquired = 1u << 30;
  unsigned stamp;    // the release's stamp (0: no release)
  // Bits 0-15: a release of block scope: the block it synchronises with, plus one (0: any block). Bits
  // 16-31, in a flag's entry: the block of the release that put it into the flag (its own, or one whose
  // thread knew it), plus one: an acquire of block scope synchronises with that release, so it takes the
  // entry only in that block (shadow_model.Entry.via)
  unsigned only;
  unsigned at;       // the releasing thread and its clocks at its fence (Point): what it did before is ordered
  // In the knowledge table: who learnt it (Point, its tid and block clock then). In a flag's entry of
  // block b: b's complete acquire of the flag's current value (kAcquired | the acquiring thread and its
  // clocks then, Point; 0: none), kept per flag (shadow_model.MemorySync.acquired) and cleared wherever
  // the flag's version changes (every such change rewrites the flag's entries)
  unsigned learnt;
};

// A thread's part: its last fence and its last strong read that no fence has made an acquire yet
struct alignas(16) ThreadSync {
  static constexpr unsigned kFenced = 1u << 30, kScopeShift = 31, kPointMask = kFenced - 1;
  unsigned fence;     // 0: none yet; else kFenced | scope << 31 | Point (its clocks right after the fence)
  unsigned read;      // 0: none; else (flag slot + 1) << 1 | the read's scope
  unsigned version;   // the flag's version that read saw
  unsigned accessed;  // (the device wiring) a plain access since its last fence's mark: the next fence marks
};

// A flag slot's part (the releases its value carries are in MemorySync::carried)
struct alignas(16) FlagSync {
  static constexpr unsigned kSeveral = ~0u;
  unsigned version;        // the stamp of its last release or plain store (0: none yet)
  unsigned scoped;         // its release sequence's releases of block scope: 0 none, block + 1, kSeveral blocks
  unsigned unreleased;     // its strong accesses that were no release: 0 none, one thread's block + 1, kSeveral
  unsigned unreleased_at;  // that one thread and its block clock at its latest (Point)
};

// Several readers of one release (docs/memory-model.md; shadow_model.MemorySync.readers): where a read
// ordered through memory after a one-accessor history that held a write took the record, the record it
// replaced (`writer`: its last accessor, before or at which every access of the word was) and the record
// it left (`reader`), carried on while only reads follow; kept per word in a table of `readers` pairs
// keyed by the address of the word's shadow (MemorySync::pair_keys, read_pair)
struct alignas(16) ReadPair {
  unsigned long long writer;
  unsigned long long reader;
};

constexpr unsigned kViaShift = 16, kOnlyMask = (1u << kViaShift) - 1;   // (Entry::only: blocks < 2^16)
static_assert(sizeof(Entry) == 16 && sizeof(ThreadSync) == 16 && sizeof(FlagSync) == 16 && sizeof(ReadPair) == 16,
              "the record's items are 16 bytes each (record_items, carve)");

// The record of one launch: plain data in one zeroed allocation (all zero: nothing happened yet), every
// part in 16-byte items. Kept per launch, not per word: each block's knowledge of each block's latest
// release (blocks x blocks entries), what each flag slot's value carries and which blocks acquired it (a
// slot per flag word, and the checked words' own), each thread's fence and pending read.
// (Sequential in this step: the model checker's harness drives it; the device wiring must keep each
// routine's reads and writes of a slot or a block's row together.)
struct MemorySync {
  unsigned *stamp;        // the launch's count of releases (each release takes the next)
  ThreadSync *threads;    // [block * threads_per_block + tid]
  FlagSync *flags;        // [slot]
  Entry *carried;         // [slot * blocks + block]: the latest release of that block the slot's value carries,
                          // and that block's complete acquire of the value (Entry::learnt)
  Entry *known;           // [block * blocks + of]: the latest release of block `of` that `block` learnt
  // What a read saw where the flag changed before the fence that makes it an acquire (shadow_model.
  // MemorySync.since, replaced): the flag's version at which each carried entry joined its value, and
  // the version of its last store (which replaced every entry; 0: none)
  unsigned *since;        // [slot * blocks + block]
  unsigned *replaced;     // [slot]
  // The entry a read-modify-write's newer release of the same block replaced, its `learnt` the version it
  // had joined at (shadow_model.MemorySync.previous: one deep; cleared by a store)
  Entry *previous;        // [slot * blocks + block]
  ReadPair *pairs;        // [pair]: a word's kept records (ReadPair)
  unsigned long long *pair_keys;   // [pair]: the address of its word's shadow (0: free)
  unsigned blocks, threads_per_block, slots;
  unsigned readers;       // the pairs (a power of two)
  // The device wiring's (memory_sync_hooks.h; null in the model checker's harness): the flag slots'
  // keys (the address of the word's shadow, 0: free; find_slot), and on the GPU the lock that keeps
  // each routine's reads and writes of the record together (0: free; else its holder: Guard)
  unsigned long long *keys;
  unsigned long long *lock;
};

// (since and replaced: four words an item)
CCTK_HD constexpr unsigned long long since_items(unsigned blocks, unsigned slots) {
  return (1ull * slots * blocks + slots + 3) / 4;
}
CCTK_HD constexpr unsigned long long record_items(unsigned blocks, unsigned threads_per_block, unsigned slots,
                                                  unsigned readers) {
  return 1ull + 1ull * blocks * threads_per_block + slots + 1ull * slots * blocks + 1ull * blocks * blocks +
         since_items(blocks, slots) + readers + (readers + 1ull) / 2 +   // (the pairs' keys: two an item)
         1ull * slots * blocks;                                          // (previous)
}
// The bytes of a launch's record
CCTK_HD constexpr unsigned long long record_bytes(unsigned blocks, unsigned threads_per_block, unsigned slots,
                                                  unsigned readers) {
  return 16ull * record_items(blocks, threads_per_block, slots, readers);
}
// The record's parts in `base` (16-byte aligned, record_bytes long, zeroed by the owner); `readers` a power
// of two
CCTK_HD inline MemorySync carve(void *base, unsigned blocks, unsigned threads_per_block, unsigned slots,
                                unsigned readers) {
  Entry *p = static_cast<Entry *>(base);
  MemorySync m;
  m.stamp = &p->stamp;
  m.threads = reinterpret_cast<ThreadSync *>(p + 1);
  m.flags = reinterpret_cast<FlagSync *>(m.threads + 1ull * blocks * threads_per_block);
  m.carried = reinterpret_cast<Entry *>(m.flags + slots);
  m.known = m.carried + 1ull * slots * blocks;
  m.since = reinterpret_cast<unsigned *>(m.known + 1ull * blocks * blocks);
  m.replaced = m.since + 1ull * slots * blocks;
  m.pairs = reinterpret_cast<ReadPair *>(m.known + 1ull * blocks * blocks + since_items(blocks, slots));
  m.pair_keys = reinterpret_cast<unsigned long long *>(m.pairs + readers);
  m.previous = reinterpret_cast<Entry *>(m.pairs + readers) + (readers + 1ull) / 2;
  m.blocks = blocks;
  m.threads_per_block = threads_per_block;
  m.slots = slots;
  m.readers = readers;
  m.keys = nullptr;
  m.lock = nullptr;
  return m;
}

// The device wiring's record (host_launch.h): the record, then the slots' keys, then the lock; `slots` a
// power of two
CCTK_HD constexpr unsigned long long wired_bytes(unsigned blocks, unsigned threads_per_block, unsigned slots,
                                                 unsigned readers) {
  return record_bytes(blocks, threads_per_block, slots, readers) + 8ull * slots + 16;
}
CCTK_HD inline MemorySync carve_wired(void *base, unsigned blocks, unsigned threads_per_block, unsigned slots,
                                      unsigned readers) {
  MemorySync m = carve(base, blocks, threads_per_block, slots, readers);
  char *end = static_cast<char *>(base) + record_bytes(blocks, threads_per_block, slots, readers);
  m.keys = reinterpret_cast<unsigned long long *>(end);
  m.lock = reinterpret_cast<unsigned long long *>(end + 8ull * slots);
  return m;
}

// A word's flag slot (its key: the address of its shadow word, never 0), taken where it has none and
// `take`; kNoSlot where it has none (the table full within kProbes of its place). A slot is never given
// back in a launch, so a word that found none never gets one later: the strong accesses it saw unrecorded
// can never be taken for releases (a flag without a slot orders nothing: false alarms, never a missed race).
constexpr unsigned kNoSlot = ~0u, kProbes = 32;
// The place of `key` (never 0) in a table of `count` keys (a power of two), taken where it has none and
// `take`: open addressing, kProbes places from its hash
CCTK_HD inline unsigned probe(unsigned long long *keys, unsigned count, unsigned long long key, bool take) {
  unsigned long long h = key >> 3;
  h ^= h >> 17;
  h *= 0x9e3779b97f4a7c15ull;
  const unsigned mask = count - 1;
  for (unsigned i = 0, s = unsigned(h >> 40) & mask; i < kProbes; ++i, s = (s + 1) & mask) {
    unsigned long long k = keys[s];
    if (k == key) return s;
    if (k == 0) {
      if (!take) return kNoSlot;
#if defined(__CUDA_ARCH__)
      k = atomicCAS(&keys[s], 0ull, key);
      if (k == 0 || k == key) return s;
#else
      keys[s] = key;   // (the cpu backend: one fiber runs at a time)
      return s;
#endif
    }
  }
  return kNoSlot;
}
CCTK_HD inline unsigned find_slot(const MemorySync &m, unsigned long long key, bool take) {
  if (!m.keys || !m.slots) return kNoSlot;
  return probe(m.keys, m.slots, key, take);
}
// The kept records of the word whose shadow is `shadow` (ReadPair), the pair taken where it has none and
// `take`; null where it has none (the table full within kProbes of its place: never a pair, so a second
// reader is reported as before, a false alarm). Like a slot, a pair is never given back in a launch.
CCTK_HD inline ReadPair *read_pair(const MemorySync &m, const unsigned long long *shadow, bool take) {
  if (!m.readers) return nullptr;
  const unsigned i = probe(m.pair_keys, m.readers, (unsigned long long)shadow, take);
  return i == kNoSlot ? nullptr : &m.pairs[i];
}

// A strong access of a thread the record does not follow (a block past the blocks it keeps): no release,
// nor a read that an acquire could complete; a store still ends the flag's release sequence
CCTK_HD inline void strong_unfollowed(const MemorySync &m, unsigned op, unsigned slot) {
  FlagSync &f = m.flags[slot];
  f.unreleased = FlagSync::kSeveral;
  if (op == kStore) {
    unsigned s = ++*m.stamp;
    f.version = s ? s : ++*m.stamp;
    for (unsigned of = 0; of < m.blocks; ++of)
      m.carried[1ull * slot * m.blocks + of] = m.previous[1ull * slot * m.blocks + of] = Entry{};
    f.scoped = 0;
    m.replaced[slot] = f.version;
  }
}

// On the GPU, the record's routines run one at a time (one lock per launch: hooks run at fences, strong
// accesses and barriers only); on the cpu backend and in the harness one fiber runs at a time already.
// The lock holds its holder (lock_holder: the thread's block and index, never 0), so that a thread that
// holds it takes it again freely: a strong access of a CUDA atomic keeps the lock from its part in the
// record until the atomic itself happened (keep(); memory_sync_hooks.h strong_done releases it), and
// the checks of the atomic's other arguments, evaluated in between, take it again.
#if defined(__CUDA_ARCH__)
CCTK_D inline unsigned long long lock_holder() {
  const unsigned long long bid = (blockIdx.z * 1ull * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  return (bid + 1) << 32 | tid;
}
CCTK_D inline bool lock_held(unsigned long long *lock) {
  return lock && *static_cast<volatile unsigned long long *>(lock) == lock_holder();   // (only the holder wrote it)
}
#endif
struct Guard {
  unsigned long long *lock = nullptr;
  bool engaged = false;   // take() was called
  bool taken = false;     // taken here (else not at all, or already held by this thread)
  CCTK_HD Guard() {}      // (not yet: take)
  CCTK_HD explicit Guard(unsigned long long *l) { take(l); }
  // takes the lock, where this guard has not yet (a guard made empty takes it where it first needs it)
  CCTK_HD void take(unsigned long long *l) {
    if (engaged) return;
    engaged = true;
    lock = l;
#if defined(__CUDA_ARCH__)
    if (lock && !lock_held(lock)) {
      const unsigned long long me = lock_holder();
      while (atomicCAS(lock, 0ull, me) != 0ull) {
      }
      taken = true;
    }
    __threadfence();
#endif
  }
  // the lock stays held past this guard (where it took it): the caller releases it (release)
  CCTK_HD void keep() { taken = false; }
  CCTK_HD ~Guard() {
#if defined(__CUDA_ARCH__)
    if (!engaged) return;
    __threadfence();
    if (taken) atomicExch(lock, 0ull);
#endif
  }
};
// Releases the lock where the calling thread holds it (after a kept Guard)
CCTK_HD inline void release(unsigned long long *lock) {
#if defined(__CUDA_ARCH__)
  if (lock_held(lock)) {
    __threadfence();
    atomicExch(lock, 0ull);
  }
#else
  (void)lock;
#endif
}

CCTK_HD inline ThreadSync &thread_sync(const MemorySync &m, const Thread &t) {
  return m.threads[1ull * t.block * m.threads_per_block + t.tid];
}
CCTK_HD inline unsigned next_stamp(const MemorySync &m) {
  unsigned s = ++*m.stamp;
  return s ? s : ++*m.stamp;   // (0 is none)
}

// Of flag `slot`'s entry of block `of`, the one a read at `version` saw where a later release replaced it:
// the entry that release replaced, if it had joined by then (MemorySync::previous), else none
CCTK_HD inline Entry seen_before(const MemorySync &m, unsigned slot, unsigned of, unsigned version) {
  const Entry &p = m.previous[1ull * slot * m.blocks + of];
  return p.stamp && !newer(p.learnt, version) ? p : Entry{};
}

// t's last strong read becomes an acquire: a fence of `scope` after it (kBarrier: a barrier, at the
// read's own scope); t's block learns what the value it read carried, and where every release it carries
// synchronised with t, the flag's entry of t's block keeps the acquire (ShadowSim._acquire). Where the
// flag changed since the read by read-modify-writes only (no store since), the entries that joined it by
// the read's version are those the read saw; the acquire is then not the complete one of the current value.
CCTK_HD inline void acquire(const MemorySync &m, const Thread &t, unsigned scope) {
  ThreadSync &me = thread_sync(m, t);
  const unsigned read = me.read;
  me.read = 0;
  if (!read) return;
  const unsigned slot = (read >> 1) - 1, read_scope = read & 1u;
  const FlagSync &f = m.flags[slot];
  const bool changed = f.version != me.version;
  if (changed && m.replaced[slot] && newer(m.replaced[slot], me.version)) return;   // a store since: not acquired
  const unsigned s0 = narrower(read_scope, scope == kBarrier ? read_scope : scope);
  bool complete = !changed, own_only = true;
  for (unsigned of = 0; of < m.blocks; ++of) {
    const Entry e = !changed || !newer(m.since[1ull * slot * m.blocks + of], me.version)
                         ? m.carried[1ull * slot * m.blocks + of]
                         : seen_before(m, slot, of, me.version);
    if (!e.stamp) continue;
    own_only = own_only && of == t.block;
    // a release of block scope synchronises with the threads of the block it names only; an acquire of
    // block scope with a release of its own block only (the one that put the entry into the flag)
    const unsigned only = e.only & kOnlyMask, via = (e.only >> kViaShift) - 1;
    const bool none = only ? only - 1 != t.block : false;
    const unsigned s = only ? unsigned(kBlock) : s0;
    if (none || (s == kBlock && via != t.block)) {
      complete = false;
      continue;
    }
    Entry &k = m.known[1ull * t.block * m.blocks + of];
    if (!k.stamp || newer(e.stamp, k.stamp)) k = Entry{e.stamp, e.only, e.at, Point::make(t.tid, t.bclk, 0)};
  }
  // complete: every release the value carries synchronised with t (a block's entry keeps its latest
  // release: one of block scope marks the flag's sequence, `scoped`)
  complete = complete && (f.scoped == 0 || f.scoped == t.block + 1) && (s0 == kDevice || own_only);
  // kept per flag: a later acquire of another flag (a volatile read in shared memory, then a barrier)
  // leaves it, and one that is not complete leaves an earlier complete one of this value
  if (complete) m.carried[1ull * slot * m.blocks + t.block].learnt = Entry::kAcquired | Point::make(t.tid, t.bclk, t.wclk);
}

// A fence of `scope` by t (its clocks before it; wclk_after: its warp clock after the fence's mark,
// update.h WarpWord::marked): its last strong read becomes an acquire, and what it did before is ordered
// before its later releases (the fence branch of ShadowSim.event)
CCTK_HD inline void fence(const MemorySync &m, const Thread &t, unsigned wclk_after, unsigned scope) {
  acquire(m, t, scope);
  thread_sync(m, t).fence = ThreadSync::kFenced | (scope & 1u) << ThreadSync::kScopeShift |
                            Point::make(t.tid, t.bclk, wclk_after);
}

// t completed a barrier (its clocks before it; bclk_after: its block clock after): the barrier completes
// t's acquire and is a fence of block scope (the barrier branch of ShadowSim.event, for each thread of
// the block)
CCTK_HD inline void barrier(const MemorySync &m, const Thread &t, unsigned bclk_after) {
  acquire(m, t, kBarrier);
  thread_sync(m, t).fence = ThreadSync::kFenced | unsigned(kBlock) << ThreadSync::kScopeShift |
                            Point::make(t.tid, bclk_after, t.wclk);
}

// A known release is visible to t: t learnt it, or passed a barrier after its block did (MemorySync.visible)
CCTK_HD inline bool visible(const Entry &k, const Thread &t) {
  return k.stamp && (Point::tid(k.learnt) == t.tid || bclk_ahead(t.bclk, Point::bclk(k.learnt)));
}

// A strong access `op` of scope `scope` by t of flag slot `slot` (ShadowSim._flag): a read is pending
// until a fence; a write after a fence is a release that takes a stamp and puts into the flag its own
// entry and what t knows (a read-modify-write joins them with what the flag carried; a store replaces it).
CCTK_HD inline void strong(const MemorySync &m, const Thread &t, unsigned op, unsigned scope, unsigned slot) {
  ThreadSync &me = thread_sync(m, t);
  FlagSync &f = m.flags[slot];
  Entry *carried = m.carried + 1ull * slot * m.blocks;
  const unsigned version = f.version;
  if (op != kStore) {
    me.read = (slot + 1) << 1 | (scope & 1u);
    me.version = version;
  }
  const bool fenced = me.fence != 0;
  if (op == kLoad || !fenced) {   // no release: t's (with its block clock), or several threads'
    if (f.unreleased == 0 || (f.unreleased == t.block + 1 && Point::tid(f.unreleased_at) == t.tid)) {
      f.unreleased = t.block + 1;
      f.unreleased_at = Point::make(t.tid, t.bclk, t.wclk);
    } else {
      f.unreleased = FlagSync::kSeveral;
    }
  }
  if (op == kLoad) return;
  if (!fenced) {   // no fence before: a store ends the flag's release sequence
    if (op == kStore) {
      f.version = next_stamp(m);
      for (unsigned of = 0; of < m.blocks; ++of) carried[of] = m.previous[1ull * slot * m.blocks + of] = Entry{};
      f.scoped = 0;
      m.replaced[slot] = f.version;
    }
    return;
  }
  const unsigned fscope = me.fence >> ThreadSync::kScopeShift;
  const unsigned only = narrower(fscope, scope & 1u) == kBlock ? t.block + 1 : 0;
  const unsigned stamp = next_stamp(m);
  unsigned *since = m.since + 1ull * slot * m.blocks;
  Entry *previous = m.previous + 1ull * slot * m.blocks;
  for (unsigned of = 0; of < m.blocks; ++of) {
    Entry e = op == kRmw ? carried[of] : Entry{};
    const Entry was = e;
    const unsigned kept = e.stamp;
    e.learnt = 0;   // (a new version: no block acquired it yet)
    const unsigned via = (t.block + 1) << kViaShift;   // (put into the flag by this release)
    if (of == t.block) e = Entry{stamp, only | via, me.fence & ThreadSync::kPointMask, 0};   // its own (the newest)
    const Entry &k = m.known[1ull * t.block * m.blocks + of];
    if (visible(k, t) && (!e.stamp || newer(k.stamp, e.stamp)))   // what t knows
      e = Entry{k.stamp, (only ? only : k.only & kOnlyMask) | via, k.at, 0};
    carried[of] = e;
    if (op != kRmw) {   // (a store: what came before is gone)
      previous[of] = Entry{};
      since[of] = stamp;
    } else if (e.stamp != kept) {   // (joined the value now; the entry it replaced kept one deep)
      if (kept) previous[of] = Entry{was.stamp, was.only, was.at, since[of]};
      since[of] = stamp;
    }
  }
  f.version = stamp;
  if (op == kStore) m.replaced[slot] = stamp;
  unsigned before = op == kRmw ? f.scoped : 0;
  if (only) before = before == 0 || before == only ? only : FlagSync::kSeveral;
  f.scoped = before;
  if (op == kRmw) {   // (its own write is what it read past)
    me.read = (slot + 1) << 1 | (scope & 1u);
    me.version = stamp;
  }
}

// Whether a release of L's block that X knows comes after L's access (record s, L's block l_block in
// the launch): L's thread released from a fence past L's clocks, or the release came after a barrier
// that L's access preceded (ShadowSim.ordered_through_memory)
// An access of block l_block by thread l_tid at clocks (l_bclk, l_wclk) comes before a release of its
// block that X knows (ShadowSim._covered, its part through memory)
CCTK_HD inline bool covered(const MemorySync &m, const Thread &x, unsigned l_block, unsigned l_tid, unsigned l_bclk,
                            unsigned l_wclk) {
  if (l_block >= m.blocks) return false;
  const Entry &k = m.known[1ull * x.block * m.blocks + l_block];
  if (!visible(k, x)) return false;
  return bclk_ahead(Point::bclk(k.at), l_bclk) || (l_tid == Point::tid(k.at) && wclk_ahead(Point::wclk(k.at), l_wclk));
}

CCTK_HD inline bool ordered_through_memory(const MemorySync &m, ShadowWord s, unsigned l_block, const Thread &x) {
  return covered(m, x, l_block, s.tid(), s.bclk(), s.wclk());
}

// Whether X (its block's complete acquire of slot's current value, visible to X) read that value, and
// every strong access of it was a release (or X's own, before a barrier X passed, or before a release X
// knows): X is then ordered after every access (ShadowSim.after_every_release)
CCTK_HD inline bool after_every_release(const MemorySync &m, const Thread &x, unsigned slot) {
  if (slot >= m.slots) return false;   // (kNoSlot: no strong access of the word was recorded)
  const FlagSync &f = m.flags[slot];
  if (f.unreleased != 0) {
    const bool mine = f.unreleased == x.block + 1 && Point::tid(f.unreleased_at) == x.tid;
    const bool before_barrier = f.unreleased == x.block + 1 && bclk_ahead(x.bclk, Point::bclk(f.unreleased_at));
    const bool before_release = f.unreleased != FlagSync::kSeveral &&
        covered(m, x, f.unreleased - 1, Point::tid(f.unreleased_at), Point::bclk(f.unreleased_at),
                Point::wclk(f.unreleased_at));
    if (!mine && !before_barrier && !before_release) return false;
  }
  const unsigned a = m.carried[1ull * slot * m.blocks + x.block].learnt;
  return (a & Entry::kAcquired) && (Point::tid(a) == x.tid || bclk_ahead(x.bclk, Point::bclk(a)));
}

// Of a barrier (kBlockSynced) or warp-level sync (kWarpSynced) since L's access, the one that also came
// after X's block's acquire of slot: the threads it orders after X are then ordered after everything
// (ShadowSim._sync_after_acquire; after after_every_release said yes)
CCTK_HD inline unsigned sync_after_acquire(const MemorySync &m, const Thread &x, unsigned sync, unsigned slot) {
  const unsigned who = m.carried[1ull * slot * m.blocks + x.block].learnt;
  if (sync == fsm::kBlockSynced && bclk_ahead(x.bclk, Point::bclk(who))) return fsm::kBlockSynced;
  const bool wrapped = (x.wclk >> ShadowWord::kWclkBits) != 0;
  return sync >= fsm::kWarpSynced && (x.wclk - x.marks > Point::wclk(who) || wrapped) ? fsm::kWarpSynced
                                                                                    : fsm::kUnsynced;
}

}  // namespace memsync
}  // namespace hirace

#endif  // HIRACE_MEMORY_SYNC_H
