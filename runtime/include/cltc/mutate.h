// cltc mutant schemata runtime: every mutant is compiled in; $CLTC_MUTANT picks
// the one that is active (0: none). Each mutation site s owns mutant ids
// base..base+k-1 and a "reached" flag, written to $CLTC_MUT_REACH at exit so
// that a mutant is only run against the tests that reach it.
// Same code for nvcc and for the cpu backend (cudaemu).
#ifndef CLTC_MUTATE_H
#define CLTC_MUTATE_H

#include <cstdio>

#include "cltc/linkage.h"
#include "cudacommon/host_runtime.h"
#include <cstdlib>
#include <string>
#include <vector>

#include "cudacommon/qualifiers.h"

namespace cltc {
namespace mut {

constexpr unsigned kSites = CLTC_MUT_SITES;   // (the planner's -D; its default: cudacommon/protocol.h)

// operator codes: generated from instrument/protocol.py (MUTATION_OPS)
using namespace ::cctk::mutation_op;

CLTC_TU_LOCAL CCTK_D unsigned g_active_dev;
CLTC_TU_LOCAL CCTK_D unsigned char g_reached_dev[kSites];
static unsigned g_active_host;
static unsigned char g_reached_host[kSites];

// The active mutant's index among site s's mutants (base..base+k-1), or -1.
CCTK_HD inline int sel(unsigned s, unsigned base, unsigned k) {
#if defined(__CUDA_ARCH__)
  volatile unsigned char *r = g_reached_dev;
  unsigned active = g_active_dev;
#else
  volatile unsigned char *r = g_reached_host;
  unsigned active = g_active_host;
#endif
  if (!r[s]) r[s] = 1;
  unsigned d = active - base;
  return d < k ? int(d) : -1;
}

CCTK_HD inline bool on(unsigned s, unsigned id) { return sel(s, id, 1) == 0; }

template <int Op, class A, class B> CCTK_HD inline auto bin(A a, B b) {
  if constexpr (Op == ADD) return a + b;
  else if constexpr (Op == SUB) return a - b;
  else if constexpr (Op == MUL) return a * b;
  else if constexpr (Op == DIV) return a / b;
  else if constexpr (Op == MOD) return a % b;
  else if constexpr (Op == AND) return a & b;
  else if constexpr (Op == OR) return a | b;
  else if constexpr (Op == XOR) return a ^ b;
  else if constexpr (Op == SHL) return a << b;
  else if constexpr (Op == SHR) return a >> b;
  else if constexpr (Op == LT) return a < b;
  else if constexpr (Op == LE) return a <= b;
  else if constexpr (Op == GT) return a > b;
  else if constexpr (Op == GE) return a >= b;
  else if constexpr (Op == EQ) return a == b;
  else return a != b;
}

// `a OP b` -> `bin_m<OP, ALT...>(a, b, s, base)`: ALT[i] when mutant base+i is active.
template <int Orig, int... Alts, class A, class B> CCTK_HD inline auto bin_m(A a, B b, unsigned s, unsigned base) {
  using R = decltype(bin<Orig>(a, b));
  int m = sel(s, base, sizeof...(Alts));
  if (m < 0) return bin<Orig>(a, b);
  R r{};
  int i = 0;
  ((i++ == m ? (void)(r = R(bin<Alts>(a, b))) : (void)0), ...);
  return r;
}

template <int Op, class T, class V> CCTK_HD inline T &assign(T &x, V v) {
  if constexpr (Op == SET) x = v;
  else if constexpr (Op == ADD) x += v;
  else if constexpr (Op == SUB) x -= v;
  else if constexpr (Op == MUL) x *= v;
  else if constexpr (Op == DIV) x /= v;
  else if constexpr (Op == MOD) x %= v;
  else if constexpr (Op == AND) x &= v;
  else if constexpr (Op == OR) x |= v;
  else if constexpr (Op == XOR) x ^= v;
  else if constexpr (Op == SHL) x <<= v;
  else x >>= v;
  return x;
}

// `x OP= v` -> `assign_m<OP, ALT...>(x, v, s, base)`
template <int Orig, int... Alts, class T, class V> CCTK_HD inline T &assign_m(T &x, V v, unsigned s, unsigned base) {
  int m = sel(s, base, sizeof...(Alts));
  if (m < 0) return assign<Orig>(x, v);
  int i = 0;
  ((i++ == m ? (void)assign<Alts>(x, v) : (void)0), ...);
  return x;
}

// `a && b` / `a || b`: the operator in force is || when `is_or` says so; b is
// evaluated exactly when the operator needs it, as the original does.
CCTK_HD inline bool is_or(bool orig_or, unsigned s, unsigned id) { return orig_or != on(s, id); }

// `!x` -> `not_m(x, s, id)`: drops the negation when active.
template <class T> CCTK_HD inline bool not_m(const T &x, unsigned s, unsigned id) { return on(s, id) ? bool(x) : !x; }

// `-x` -> `neg_m(x, s, id)`: drops the negation when active.
template <class T> CCTK_HD inline auto neg_m(T x, unsigned s, unsigned id) -> decltype(-x) {
  return on(s, id) ? decltype(-x)(+x) : -x;
}

// `++x` / `x++` (and --): the other direction when active.
template <int Op, class T> CCTK_HD inline T &pre_m(T &x, unsigned s, unsigned id) {
  bool inc = (Op == INC) != on(s, id);
  return inc ? ++x : --x;
}
template <int Op, class T> CCTK_HD inline T post_m(T &x, unsigned s, unsigned id) {
  bool inc = (Op == INC) != on(s, id);
  return inc ? x++ : x--;
}

// threadIdx.c -> idx_m(threadIdx.c, blockIdx.c, s, base): +1, -1, swapped with blockIdx.c
CCTK_HD inline unsigned idx_m(unsigned v, unsigned other, unsigned s, unsigned base, unsigned k) {
  switch (sel(s, base, k)) {
    case 0: return k == 1 ? other : v + 1;
    case 1: return v - 1;
    case 2: return other;
    default: return v;
  }
}

// shared-memory index i -> shidx_m(i, s, base): i + 1, i - 1
template <class T> CCTK_HD inline T shidx_m(T i, unsigned s, unsigned base) {
  switch (sel(s, base, 2)) {
    case 0: return T(i + 1);
    case 1: return T(i - 1);
    default: return i;
  }
}

// loop bound b -> bound_m(b, s, base): b - 1, b + 1
template <class T> CCTK_HD inline T bound_m(T b, unsigned s, unsigned base) {
  switch (sel(s, base, 2)) {
    case 0: return T(b - 1);
    case 1: return T(b + 1);
    default: return b;
  }
}

// a barrier, deleted when active: `(on(s, id) ? (void)0 : (void)__syncthreads())`

#if defined(CUDAEMU)
#define CLTC_MUT_YIELD() ::cudaemu::maybe_yield()
#else
#define CLTC_MUT_YIELD() ((void)0)
#endif

// atomics as plain read-modify-write when active (lost updates become possible;
// on the cpu backend, seeded schedules may switch threads between read and write)
#define CLTC_MUT_PLAIN_ATOMIC(NAME, EXPR)                                                          \
  template <class T, class V> CCTK_HD inline T NAME##_m(unsigned s, unsigned id, T *p, V v) {     \
    if (!on(s, id)) return NAME(p, v);                                                             \
    T old = *p;                                                                                    \
    CLTC_MUT_YIELD();                                                                              \
    *p = (EXPR);                                                                                   \
    return old;                                                                                    \
  }
CLTC_MUT_PLAIN_ATOMIC(atomicAdd, T(old + v))
CLTC_MUT_PLAIN_ATOMIC(atomicSub, T(old - v))
CLTC_MUT_PLAIN_ATOMIC(atomicExch, T(v))
CLTC_MUT_PLAIN_ATOMIC(atomicMin, (T(v) < old ? T(v) : old))
CLTC_MUT_PLAIN_ATOMIC(atomicMax, (old < T(v) ? T(v) : old))
CLTC_MUT_PLAIN_ATOMIC(atomicAnd, T(old & v))
CLTC_MUT_PLAIN_ATOMIC(atomicOr, T(old | v))
CLTC_MUT_PLAIN_ATOMIC(atomicXor, T(old ^ v))
CLTC_MUT_PLAIN_ATOMIC(atomicInc, T((old >= T(v)) ? 0 : old + 1))
CLTC_MUT_PLAIN_ATOMIC(atomicDec, T((old == 0 || old > T(v)) ? T(v) : old - 1))
#undef CLTC_MUT_PLAIN_ATOMIC
template <class T, class C, class V> CCTK_HD inline T atomicCAS_m(unsigned s, unsigned id, T *p, C cmp, V v) {
  if (!on(s, id)) return atomicCAS(p, cmp, v);
  T old = *p;
  CLTC_MUT_YIELD();
  if (old == T(cmp)) *p = T(v);
  return old;
}

namespace host {

struct Tu {
  void (*set_active)(unsigned);
  void (*pull)(std::vector<unsigned char> &);
};

struct State {
  bool init = false;
  unsigned active = 0;
  std::string reach_path;
  std::vector<Tu> tus;
};

inline State &state() {
  static State s;
  return s;
}

inline void finish() {
  State &s = state();
  if (s.reach_path.empty()) return;
  std::vector<unsigned char> r(kSites, 0);
  for (unsigned i = 0; i < kSites; ++i) r[i] = g_reached_host[i];
  for (const Tu &tu : s.tus) tu.pull(r);
  {
    ::cctk::host::LogFile log(s.reach_path);
    if (!log) return;
    namespace rec = ::cctk::reach_log;   // record writers generated from instrument/protocol.py
    for (unsigned i = 0; i < kSites; ++i)
      if (r[i]) rec::write_reached(log.get(), i);
    rec::write_end(log.get());
  }
  s.reach_path.clear();
}

// Before every launch: the first one tells every translation unit which mutant is active.
inline void before_launch() {
  State &s = state();
  if (s.init) return;
  s.init = true;
  using ::cctk::host::option;
  if (const char *p = option(::cctk::env::kCltcMutant)) s.active = unsigned(std::strtoul(p, nullptr, 10));
  if (const char *p = option(::cctk::env::kCltcMutReach)) s.reach_path = p;
  for (const Tu &tu : s.tus) tu.set_active(s.active);
  static bool registered = false;   // a cudaDeviceReset starts another init: one hook is enough
  if (!registered) {
    registered = true;
    ::cctk::host::at_end(finish);
  }
}

// `cudaDeviceReset()` frees the reached flags: read them first.
inline void before_reset() {
  State &s = state();
  if (!s.init || s.reach_path.empty()) return;
  std::vector<unsigned char> r(kSites, 0);
  for (const Tu &tu : s.tus) tu.pull(r);
  for (unsigned i = 0; i < kSites; ++i) g_reached_host[i] |= r[i];
  s.init = false;  // the next launch sets the active mutant again
}

struct TuRegistrar {
  explicit TuRegistrar(Tu tu) { state().tus.push_back(tu); }
};

}  // namespace host

namespace {
inline void cltc_mut_set_active(unsigned a) {
  g_active_host = a;
#if !defined(CUDAEMU)
  cudaMemcpyToSymbol(g_active_dev, &a, sizeof a);
#endif
}
inline void cltc_mut_pull(std::vector<unsigned char> &r) {
#if !defined(CUDAEMU)
  std::vector<unsigned char> mine(kSites);
  if (cudaMemcpyFromSymbol(mine.data(), g_reached_dev, kSites) == cudaSuccess)
    for (unsigned i = 0; i < kSites; ++i) r[i] |= mine[i];
#endif
  for (unsigned i = 0; i < kSites; ++i) r[i] |= g_reached_host[i];
}
static host::TuRegistrar cltc_mut_registrar(host::Tu{&cltc_mut_set_active, &cltc_mut_pull});
}  // namespace

}  // namespace mut
}  // namespace cltc

#endif  // CLTC_MUTATE_H
