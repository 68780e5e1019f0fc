// The cpu backend's memo of checks that changed nothing (check.h `check`): a thread that repeats an
// access in one turn (`out[i] = in[i] + 1` in a loop, a histogram's bins) skips the check when the words
// it covers hold what they held when the same check, earlier in the turn, left them as it found them.
//
// Why that is sound. cudaemu runs a grid's threads as fibers of one OS thread (scheduler.h), so within
// one turn (`::cudaemu::detail::g_turn`: it steps at every change of the running thread) no other thread
// touches memory. A check is a function of its arguments (address, size, site, kind, bounds), of the
// launch (constant while it runs), of the thread's context (its ids and clocks: a step of its clocks
// steps the turn too, `forget`, from clocks.h), and of the words it reads: the shadow word and the
// prior-site slots of each word it covers; the rest of what it touches it only sets (the stream
// footprint's bits, the block's clean extents of shared shadow), as the first such check did. So a check
// that left its words and slots as they were (and logged nothing: a race leaves its word RACE), repeated
// in the same turn with the same arguments on the same words and slots, would leave them so again: `look`
// finds its entry and compares every word and slot it kept, so that a change the thread made in between
// through another site or kind (a write, an atomic) takes the whole check again. Only accesses of a few
// words are kept (kWords), and only in units that do not follow synchronisation through memory
// (HIRACE_MEMORY_SYNC: the update reads the launch's release record too). tests/test_hirace_turn_memo.py
// compares the races found with and without the memo (HIRACE_BENCH_NO_TURN_MEMO) on kernels that repeat
// accesses across such changes.
#ifndef HIRACE_TURN_MEMO_H
#define HIRACE_TURN_MEMO_H

#include "bench_switches.h"

#if defined(CUDAEMU) && !HIRACE_MEMORY_SYNC && !HIRACE_BENCH_NO_TURN_MEMO
#define HIRACE_TURN_MEMO 1
#include "records.h"

namespace hirace {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: a unit's configuration checks as its own)
namespace turn_memo {

// What the memo keeps of an address and site (`index_of`): the address and the turn it was last
// checked in (`Tag`, in a table of its own that stays in the cache: most checks look there and go on);
// from its second check in the turn on, the check's other arguments and what its words held before it
// (`Entry`), armed when the check left them as they were.
constexpr unsigned kWords = 4;   // (an access of more words is not kept)
struct Tag {
  const void *p = nullptr;
  unsigned long long turn = ~0ull;
};
struct Entry {
  bool armed = false;
  unsigned site = 0, how = 0;                   // how: size, kind, then_write
  unsigned words = 0;                           // (more than kWords: not kept)
  const volatile void *base = nullptr;
  unsigned long long bytes = 0, turn = ~0ull;
  const unsigned long long *shadow = nullptr;   // its first word (words 0: none, not monitored or no state)
  const SiteSlots *slots = nullptr;             // their slots; null: the check reads none
  unsigned long long shadow_bits[kWords];
  SiteSlots slot_bits[kWords];
};
constexpr unsigned kEntries = 256;
inline Tag g_tags[kEntries];
inline Entry g_entries[kEntries];
inline Entry g_hit;   // (what `look` answers for a check that is skipped)

inline unsigned how_of(unsigned size, unsigned kind, bool then_write) {
  return size << 4 | kind << 1 | unsigned(then_write);
}
inline unsigned index_of(const void *p, unsigned site) {
  const unsigned long long a = (unsigned long long)p;
  return unsigned((a >> 2) ^ (a >> 10) ^ site * 0x9e3779b1u) % kEntries;
}
inline bool same(const SiteSlots &a, const SiteSlots &b) {
  return a.last_site == b.last_site && a.last_thread == b.last_thread && a.other_site == b.other_site &&
         a.other_thread == b.other_thread;
}
// Do the entry's words and slots hold what it kept?
inline bool unchanged(const Entry &e) {
  for (unsigned w = 0; w < e.words; ++w)
    if (e.shadow[w] != e.shadow_bits[w] || (e.slots && !same(e.slots[w], e.slot_bits[w]))) return false;
  return true;
}

// The check about to run: &g_hit when it changed nothing earlier in the thread's turn, with the same
// arguments, on the words as they are now (skip it); else the entry to note it in (`before`, `after`),
// or null when it is the address's first check in the turn (only its tag is kept).
inline Entry *look(const void *p, unsigned site, unsigned how, const volatile void *base, unsigned long long bytes) {
  const unsigned i = index_of(p, site);
  Tag &t = g_tags[i];
  Entry &e = g_entries[i];
  const unsigned long long turn = ::cudaemu::detail::g_turn;
  if (t.turn != turn || t.p != p) {
    t = Tag{p, turn};
    e.armed = false;
    return nullptr;
  }
  const bool key = e.site == site && e.how == how && e.base == base && e.bytes == bytes;
  if (e.armed && key && unchanged(e)) return &g_hit;
  e.armed = false;
  e.site = site;
  e.how = how;
  e.base = base;
  e.bytes = bytes;
  return &e;
}

// Before the check's words change: its `words` words from `shadow` on, their slots `sites` (null: the
// check reads none), as they are.
inline void before(Entry *e, const unsigned long long *shadow, unsigned long long words, const unsigned *sites) {
  if (!e) return;
  e->words = unsigned(words);
  e->turn = ::cudaemu::detail::g_turn;
  if (words > kWords) return;
  e->shadow = shadow;
  e->slots = reinterpret_cast<const SiteSlots *>(sites);
  for (unsigned w = 0; w < e->words; ++w) {
    e->shadow_bits[w] = shadow[w];
    if (sites) e->slot_bits[w] = e->slots[w];
  }
}
// After the check, in the same turn: armed when it left its words and slots as they were (no race either:
// a race leaves its word RACE, which no check leaves).
inline void after(Entry *e) {
  if (e && e->words <= kWords && e->turn == ::cudaemu::detail::g_turn && unchanged(*e)) e->armed = true;
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
