// The record of synchronisation through memory (docs/memory-model.md; HIRACE_MEMORY_SYNC): what a launch
// keeps of fences, flags and what each block acquired, as plain data in one zeroed allocation, and its
// layout (`record_bytes`, `carve`; the device wiring's keys and lock: `wired_bytes`, `carve_wired`). The
// routines that keep it are memory_sync.h's; each part mirrors hirace/shadow_model.py's MemorySync.
#ifndef HIRACE_MEMORY_SYNC_RECORD_H
#define HIRACE_MEMORY_SYNC_RECORD_H

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

}  // namespace memsync
}  // namespace hirace

#endif  // HIRACE_MEMORY_SYNC_RECORD_H
