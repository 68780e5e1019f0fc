// What a kernel launch read and wrote, for the stream relation (host_streams.h), in a build whose program
// uses streams, events or asynchronous copies (HIRACE_STREAMS=1, hirace/planner.py): every checked access
// of a buffer of the program sets its words' bits here (check.h `check`), and the relation turns them into
// the launch's footprint when the grid has run. Nothing here in other builds.
// cpu backend: one launch runs at a time and its threads on one OS thread (cudaemu), so no lock is taken.
// gpu backend: the bits are in device memory, three arrays per buffer (LaunchState::footprints, allocated
// and read back by host_streams.h `prepare_footprints`, `take_footprints` once the launch is waited for),
// set with atomicOr where not yet set, and a flag per buffer says which buffers the launch touched.
#ifndef HIRACE_STREAM_FOOTPRINT_H
#define HIRACE_STREAM_FOOTPRINT_H

#if defined(CUDAEMU) && HIRACE_STREAMS
#include <cstdint>
#include <vector>

namespace hirace {
namespace footprint {

// How an operation touched a word: read, written, or by device-scope atomics only (which do not race
// with each other, as within a launch); a block-scope atomic counts as a write.
enum Use : unsigned { kRead = 0, kWrite = 1, kAtomic = 2, kUses = 3 };

struct Touched {
  unsigned buffer;                 // the range table's id (host_state.h buffers)
  std::vector<uint64_t> bits[kUses];   // a bit per word of the buffer (the shadow's granularity)
};

inline std::vector<Touched> g_touched;   // (a variable, not a function's static: no guard at every access)
inline std::vector<Touched> &touched() { return g_touched; }

inline Touched *g_last[2] = {nullptr, nullptr};   // the buffers the last accesses touched (`out[i] = in[i]`)

// The last two quiet accesses the launch noted (check.h quiet_footprint: address, size and use): a thread that
// repeats one sets no new bit (within a launch bits are only ever set), so it notes nothing (simpleMultiCopy's
// `for (...) out[i] = in[i] + 1`).
inline const void *g_noted_p[2] = {nullptr, nullptr};
inline unsigned g_noted_how[2] = {0, 0}, g_noted_next = 0;   // (the slot a new note takes: the one used less lately)
inline bool noted_before(const void *p, unsigned how) {
  for (unsigned i = 0; i < 2; ++i)
    if (g_noted_p[i] == p && g_noted_how[i] == how) {
      g_noted_next = i ^ 1u;   // (a word every thread reads, `*factor`, stays beside each thread's own)
      return true;
    }
  return false;
}
inline void remember(const void *p, unsigned how) {
  g_noted_p[g_noted_next] = p;
  g_noted_how[g_noted_next] = how;
  g_noted_next ^= 1u;
}
// A quiet parameter's bits in this launch (check.h quiet_footprint: the `bit`-th quiet candidate's buffer, where
// every quiet access through it lies): found by its first note of the launch, so that the others set their bits
// inline, without locating the access (a grid-stride read names a new word at each step: simpleCudaGraphs' reduce).
struct ParamBits {
  unsigned long long generation = 0;   // g_generation when found (another: an earlier launch's)
  unsigned long long base = 0, limit = 0;
  unsigned shift = 0;
  uint64_t *words[kUses] = {};         // Touched::bits (a vector's storage stays while the launch's footprint does)
};
inline unsigned long long g_generation = 1;   // steps at each forget()
inline ParamBits g_param_bits[::cctk::kQuietParams];
// The launch's footprint taken (host_stream_launches.h): the next launch's begins empty
inline void forget() {
  g_touched.clear();
  g_noted_p[0] = g_noted_p[1] = nullptr;
  ++g_generation;
}

// The launch's bits of buffer `buffer` (`limit` bytes), made where it has none yet (out of line: `note`
// is inlined into every check, and nearly every access finds its buffer in g_last)
[[gnu::noinline]] inline Touched *bits_of(unsigned buffer, unsigned long long limit, unsigned shift) {
  std::vector<Touched> &all = g_touched;
  for (Touched &t : all)
    if (t.buffer == buffer) return &t;
  all.push_back(Touched{buffer, {}});
  Touched *last = &all.back();
  size_t words = size_t((limit + (1ull << shift) - 1) >> shift), n = (words + 63) / 64;
  for (auto &b : last->bits) b.assign(n, 0);
  return last;
}

// The access [offset, offset + size) of buffer `buffer` (`limit` bytes), by kind (fsm::Access), its
// write too when `then_write` (a read-modify-write).
[[gnu::always_inline]] inline void note(unsigned buffer, long long offset, unsigned size, unsigned kind, bool then_write,
                                        unsigned long long limit, unsigned shift) {
  if (g_touched.empty()) g_last[0] = g_last[1] = nullptr;   // (a new launch: the relation took the last one's)
  Touched *last = g_last[0];
  if (!last || last->buffer != buffer) {
    const Touched *before = g_touched.data();
    last = g_last[1] && g_last[1]->buffer == buffer ? g_last[1] : bits_of(buffer, limit, shift);
    g_last[1] = g_touched.data() == before ? g_last[0] : nullptr;   // (moved with the others: found again)
    g_last[0] = last;
  }
  const unsigned use = kind == 0 ? kRead : kind == 3 ? kAtomic : kWrite;
  unsigned long long first = (unsigned long long)offset >> shift;
  unsigned long long end = ((unsigned long long)offset + (size ? size : 1) - 1) >> shift;
  for (unsigned long long w = first; w <= end; ++w) {
    last->bits[use][w / 64] |= 1ull << (w % 64);
    if (then_write) last->bits[kWrite][w / 64] |= 1ull << (w % 64);
  }
}

// The words [offset, offset + size) of a quiet parameter's buffer, by kind (as note), its write too when `then_write`
[[gnu::always_inline]] inline void note_param(const ParamBits &b, unsigned long long offset, unsigned size, unsigned kind,
                                              bool then_write) {
  const unsigned use = kind == 0 ? kRead : kind == 3 ? kAtomic : kWrite;
  const unsigned long long first = offset >> b.shift, end = (offset + (size ? size : 1) - 1) >> b.shift;
  for (unsigned long long w = first; w <= end; ++w) {
    b.words[use][w / 64] |= 1ull << (w % 64);
    if (then_write) b.words[kWrite][w / 64] |= 1ull << (w % 64);
  }
}
// After a note of a quiet parameter's access, located: its buffer's bits for the launch's later notes
inline void keep_param(unsigned bit, unsigned long long base, unsigned buffer, unsigned long long limit, unsigned shift) {
  if (bit >= ::cctk::kQuietParams) return;
  Touched *t = bits_of(buffer, limit, shift);
  ParamBits &b = g_param_bits[bit];
  b.generation = g_generation;
  b.base = base;
  b.limit = limit;
  b.shift = shift;
  for (unsigned u = 0; u < kUses; ++u) b.words[u] = t->bits[u].data();
}
}  // namespace footprint
}  // namespace hirace
#elif HIRACE_STREAMS   // (the gpu backend)
namespace hirace {
namespace footprint {

enum Use : unsigned { kRead = 0, kWrite = 1, kAtomic = 2, kUses = 3 };

// 64-bit words of one use's bit array for a buffer of `limit` bytes (a bit per shadow word)
CCTK_HD inline unsigned long long bit_words(unsigned long long limit, unsigned shift) {
  return (((limit + (1ull << shift) - 1) >> shift) + 63) / 64;
}

#if defined(__CUDA_ARCH__)
// The access [offset, offset + size) of buffer `buffer` (`limit` bytes), by kind (fsm::Access), its write
// too when `then_write`: its words' bits in the launch's arrays.
__device__ inline void note(unsigned long long *const *table, unsigned *touched, unsigned buffer, long long offset,
                            unsigned size, unsigned kind, bool then_write, unsigned long long limit, unsigned shift) {
  if (!table) return;
  unsigned long long *bits = table[buffer];
  if (!bits) return;
  if (!*(volatile unsigned *)&touched[buffer]) *(volatile unsigned *)&touched[buffer] = 1u;
  const unsigned long long n = bit_words(limit, shift);
  const unsigned use = kind == 0 ? kRead : kind == 3 ? kAtomic : kWrite;
  unsigned long long first = (unsigned long long)offset >> shift;
  unsigned long long end = ((unsigned long long)offset + (size ? size : 1) - 1) >> shift;
  for (unsigned pass = 0; pass < (then_write ? 2u : 1u); ++pass) {
    unsigned long long *a = bits + (pass ? kWrite : use) * n;
    for (unsigned long long w = first; w <= end; ++w) {
      unsigned long long *p = a + w / 64, m = 1ull << (w % 64);
      if (!(*(volatile unsigned long long *)p & m)) atomicOr(p, m);
    }
  }
}
#endif

}  // namespace footprint
}  // namespace hirace
#endif

#endif  // HIRACE_STREAM_FOOTPRINT_H
