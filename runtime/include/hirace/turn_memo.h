// The cpu backend's memo of checks that changed nothing (check.h `check`): a thread that repeats an
// access in one turn (`out[i] = in[i] + 1` in a loop, a histogram's bins) skips the check's work when
// the words it covers hold what they held when the same check last changed nothing.
//
// Why that is sound. cudaemu runs a grid's threads as fibers of one OS thread (scheduler.h), so between
// two of its turns (`::cudaemu::detail::g_turn`: it counts every change of the running thread) no other
// thread touches memory. A check is a function of its arguments (address, size, site, kind, bounds), of
// the launch (constant while it runs), of the thread's context (its ids and clocks: a clock step bumps
// the turn too, `forget`, from clocks.h), and of the words it reads: the shadow word and the prior-site
// slots of each word it covers; the rest of what it touches it only sets (the stream footprint's bits, the
// block's clean extents of shared shadow), and the first check set them. So a check that wrote no shadow
// word, no slot and no record, repeated in the same turn with the same arguments on the same shadow word
// and slots, would write nothing either: `hit` finds such an entry and compares the word and its slots,
// every field, so a change the thread made through another site or kind in between (a write, an atomic)
// takes the whole check again. Only accesses of a few words are kept (kWords), and only in units that do not follow
// synchronisation through memory (HIRACE_MEMORY_SYNC: the update reads the launch's release record too).
// tests/test_hirace_turn_memo.py holds kernels whose races a memo without these conditions would miss.
#ifndef HIRACE_TURN_MEMO_H
#define HIRACE_TURN_MEMO_H

#include "bench_switches.h"

#if defined(CUDAEMU) && !HIRACE_MEMORY_SYNC && !HIRACE_BENCH_NO_TURN_MEMO
#define HIRACE_TURN_MEMO 1
#include "records.h"

namespace hirace {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: a unit's configuration checks as its own)
namespace turn_memo {

// A check that changed nothing: its arguments, the turn it ran in, and what its words held then.
constexpr unsigned kWords = 4;   // (an access of more words is not kept)
struct Entry {
  const void *p = nullptr;
  const volatile void *base = nullptr;
  unsigned long long bytes = 0;
  unsigned long long turn = ~0ull;
  const unsigned long long *shadow = nullptr;   // its first word; null: none to compare (not monitored, no state)
  const SiteSlots *slots = nullptr;             // their slots; null: none kept
  unsigned site = 0, how = 0;                   // how: size, kind, then_write
  unsigned words = 0;
  unsigned long long shadow_bits[kWords];
  SiteSlots slot_bits[kWords];
};
constexpr unsigned kEntries = 256;
inline Entry g_table[kEntries];
// Set by check_words where a check writes a shadow word, a slot or a record, cleared by `begin`
inline bool g_wrote = false;

inline unsigned how_of(unsigned size, unsigned kind, bool then_write) {
  return size << 4 | kind << 1 | unsigned(then_write);
}
inline Entry &entry(const void *p, unsigned site) {
  const unsigned long long a = (unsigned long long)p;
  return g_table[unsigned((a >> 2) ^ (a >> 10) ^ site * 0x9e3779b1u) % kEntries];
}
inline bool same(const SiteSlots &a, const SiteSlots &b) {
  return a.last_site == b.last_site && a.last_thread == b.last_thread && a.other_site == b.other_site &&
         a.other_thread == b.other_thread;
}

// Is this check one that changed nothing earlier in the thread's turn, on the words it finds now?
inline bool hit(const void *p, unsigned site, unsigned how, const volatile void *base, unsigned long long bytes) {
  const Entry &e = entry(p, site);
  if (e.turn != ::cudaemu::detail::g_turn || e.p != p || e.site != site || e.how != how || e.base != base ||
      e.bytes != bytes)
    return false;
  for (unsigned w = 0; w < e.words; ++w)
    if (e.shadow[w] != e.shadow_bits[w] || (e.slots && !same(e.slots[w], e.slot_bits[w]))) return false;
  return true;
}

// The check about to run; `note` after it, if it changed nothing in the same turn: its `words` words
// from `shadow` on, with their slots `sites` (null: the check reads none).
inline unsigned long long begin() {
  g_wrote = false;
  return ::cudaemu::detail::g_turn;
}
inline void note(unsigned long long turn, const void *p, unsigned site, unsigned how, const volatile void *base,
                 unsigned long long bytes, const unsigned long long *shadow, unsigned long long words,
                 const unsigned *sites) {
  if (g_wrote || turn != ::cudaemu::detail::g_turn || words > kWords) return;
  Entry &e = entry(p, site);
  e.p = p;
  e.base = base;
  e.bytes = bytes;
  e.turn = turn;
  e.shadow = shadow;
  e.slots = reinterpret_cast<const SiteSlots *>(sites);
  e.site = site;
  e.how = how;
  e.words = unsigned(words);
  for (unsigned w = 0; w < e.words; ++w) {
    e.shadow_bits[w] = shadow[w];
    if (sites) e.slot_bits[w] = e.slots[w];
  }
}

// The thread's clocks changed (a barrier, a warp-level sync, a fence's mark), or a launch starts: what
// the memo holds was checked in another context.
inline void forget() { ++::cudaemu::detail::g_turn; }

}  // namespace turn_memo
}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace hirace
#else
#define HIRACE_TURN_MEMO 0
#endif

#endif  // HIRACE_TURN_MEMO_H
