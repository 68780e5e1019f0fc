// Synchronisation through memory (docs/memory-model.md; HIRACE_MEMORY_SYNC): the record a launch keeps
// of fences, flags and what each block acquired, and the routines that keep it and that the shadow
// update asks (update.h). The specification is hirace/shadow_model.py (MemorySync, ShadowSim): each
// routine here mirrors the Python function it names, and the model checker replays its traces through
// them (hirace/harness/fsm_harness.cpp, `hirace verify-fsm --memory`).
#ifndef HIRACE_MEMORY_SYNC_H
#define HIRACE_MEMORY_SYNC_H

#include "config.h"
#include "fsm_table.h"
#include "memory_sync_record.h"   // the record's parts and layout

namespace hirace {
namespace memsync {

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
