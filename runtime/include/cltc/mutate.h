// cltc mutant schemata runtime: every mutant is compiled in; $CLTC_MUTANT picks
// the one that is active (0: none). Each mutation site s owns mutant ids
// base..base+k-1 and a "reached" flag, written to $CLTC_MUT_REACH at exit so
// that a mutant is only run against the tests that reach it.
// Same code for nvcc and for the cpu backend (cudaemu).
//
// A program built whole (cltc's own builds) numbers its sites and mutants once for all its files.
// A unit built by itself through the compiler launcher (cltc-cc in mutate mode: CLTC_MUT_UNITS=1)
// numbers its own from 0 and 1: what touches its flags and its active mutant has internal linkage
// (CLTC_MUT_UNIT_BEGIN), its mutant table and each mutant's stable id (FILE:LINE:COLUMN:OPERATOR:
// REPLACEMENT, one a line) are text of its own object, registered when the program starts
// (register_this_unit, called from the end of its file). $CLTC_MUTANT then holds a stable id, never a
// number of some build's order: every unit that holds that mutant (a header two units include) runs
// it. At exit each process writes its units' tables and the sites they reached, by the program's
// site ids (a unit's first, given when it registers, plus its own), to $CLTC_MUT_REACH or to a file of
// its own in $CLTC_MUT_LOG_DIR (cltc-mut-PID-N.jsonl).
#ifndef CLTC_MUTATE_H
#define CLTC_MUTATE_H

#include <cstdio>

#include "cltc/linkage.h"
#include "cudacommon/host_runtime.h"
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <pthread.h>

#include "cudacommon/qualifiers.h"

// A unit built by cltc-cc: what touches the unit's own flags and active mutant has internal linkage
// (a host-compiled helper of one unit, as the cpu backend builds them, must never be taken for another's).
#if CLTC_MUT_UNITS
#define CLTC_MUT_UNIT_BEGIN namespace {
#define CLTC_MUT_UNIT_END }
#else
#define CLTC_MUT_UNIT_BEGIN
#define CLTC_MUT_UNIT_END
#endif

namespace cltc {
namespace mut {

constexpr unsigned kSites = CLTC_MUT_SITES;   // (the planner's -D; its default: cudacommon/protocol.h)

// operator codes: generated from instrument/protocol.py (MUTATION_OPS)
using namespace ::cctk::mutation_op;

CLTC_TU_LOCAL CCTK_D unsigned g_active_dev;
CLTC_TU_LOCAL CCTK_D unsigned char g_reached_dev[kSites];
static unsigned g_active_host;
static unsigned char g_reached_host[kSites];

CLTC_MUT_UNIT_BEGIN

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

CLTC_MUT_UNIT_END

namespace host {

// A translation unit of the program. Nothing here depends on a unit's own macros: every unit shares
// this code, whatever it was built with.
struct Tu {
  void (*set_active)(unsigned);           // the unit's own id of the active mutant (0: none)
  void (*pull)(unsigned char *reached);   // ORs the unit's reached flags into reached[0..sites)
  unsigned sites, mutants;
  const char *table;                      // a unit built by cltc-cc: its mutants (JSON); else nullptr
  const char *selectors;                  // ... and their stable ids, one a line, in the order of its ids
  unsigned site_base;                     // its first site among the program's (0 in a program built whole)
  unsigned active;                        // its own id of the active mutant
};

struct State {
  bool init = false;
  std::string active;                     // $CLTC_MUTANT as given
  std::string reach_path, log_dir;
  std::vector<Tu> tus;
  std::vector<unsigned char> reached;     // by the program's site ids: what a cudaDeviceReset would free
  unsigned next_site = 0;                 // the first site of the next unit built by cltc-cc
};

inline State &state() {
  static State s;
  return s;
}

// Does the stable id `sel` (FILE:LINE:COLUMN:OPERATOR:REPLACEMENT, FILE as the unit was built) name
// what `want` names? `want` may give the tail of FILE's path after a '/' (lib/scale.cu:...).
inline bool same_mutant(const char *sel, size_t n, const std::string &want) {
  if (want.size() > n || std::strncmp(sel + n - want.size(), want.c_str(), want.size()) != 0) return false;
  return want.size() == n || sel[n - want.size() - 1] == '/';
}

// A unit's own id of the mutant `want` names (its selectors, one a line, are its ids 1, 2, ...), or 0.
inline unsigned unit_id_of(const char *selectors, const std::string &want) {
  unsigned id = 1;
  for (const char *p = selectors; *p; ++id) {
    const char *e = std::strchr(p, '\n');
    size_t n = e ? size_t(e - p) : std::strlen(p);
    if (same_mutant(p, n, want)) return id;
    p += e ? n + 1 : n;
  }
  return 0;
}

// How many sites the program has (its units' sites by their first ids).
inline size_t program_sites(const State &s) {
  size_t n = 0;
  for (const Tu &tu : s.tus) n = tu.site_base + tu.sites > n ? tu.site_base + tu.sites : n;
  return n;
}

// Every unit's reached flags, ORed into s.reached (by the program's site ids).
inline void pull_all(State &s) {
  if (s.reached.size() < program_sites(s)) s.reached.resize(program_sites(s), 0);
  for (const Tu &tu : s.tus) tu.pull(s.reached.data() + tu.site_base);
}

inline void write_log(State &s) {
  std::string path = !s.reach_path.empty() ? s.reach_path
                     : !s.log_dir.empty() ? ::cctk::host::log_in_dir(s.log_dir, "cltc-mut") : std::string();
  if (path.empty()) return;
  pull_all(s);
  ::cctk::host::LogFile log(path);
  if (!log) {
    std::fprintf(stderr, "cltc mutate: cannot write the reached-sites log %s: %s\n", path.c_str(), std::strerror(errno));
    return;
  }
  std::FILE *f = log.get();
  namespace rec = ::cctk::reach_log;   // record writers generated from instrument/protocol.py
  for (size_t i = 0; i < s.reached.size(); ++i)
    if (s.reached[i]) rec::write_reached(f, unsigned(i));
  bool units = false;
  for (const Tu &tu : s.tus)
    if (tu.table) {
      units = true;
      rec::write_unit(f, tu.site_base, tu.sites, tu.mutants, tu.active, tu.table);
    }
  if (units) {
#if defined(CUDAEMU)
    rec::write_process(f, unsigned(getpid()), ::cctk::host::own_command().c_str(), "cpu");
#else
    rec::write_process(f, unsigned(getpid()), ::cctk::host::own_command().c_str(), "gpu");
#endif
  }
  rec::write_end(f);
}

inline void finish() {
  State &s = state();
  if (!s.init) return;
  write_log(s);
  s.init = false;
}

// A forked child has its parent's flags, which are the parent's to write: it writes a log only
// when it launches kernels itself.
inline void forked_child() { state().init = false; }

// Before every launch: the first one tells every translation unit which mutant is active.
inline void before_launch() {
  State &s = state();
  if (s.init) return;
  s.init = true;
  using ::cctk::host::option;
  const char *a = option(::cctk::env::kCltcMutant);
  s.active = a ? a : "";
  s.reach_path = s.log_dir = "";
  if (const char *p = option(::cctk::env::kCltcMutReach)) s.reach_path = p;
  if (const char *d = option(::cctk::env::kCltcMutLogDir)) s.log_dir = d;
  for (Tu &tu : s.tus) {   // a program built whole: a number; a unit built by cltc-cc: a stable id
    tu.active = tu.table ? (s.active.empty() ? 0u : unit_id_of(tu.selectors, s.active))
                         : unsigned(std::strtoul(s.active.c_str(), nullptr, 10));
    tu.set_active(tu.active);
  }
  static bool registered = false;   // a cudaDeviceReset starts another init: one hook is enough
  if (!registered) {
    registered = true;
    ::cctk::host::at_end(finish);
    pthread_atfork(nullptr, nullptr, forked_child);
  }
}

// `cudaDeviceReset()` frees the reached flags: read them first.
inline void before_reset() {
  State &s = state();
  if (!s.init) return;
  pull_all(s);
  s.init = false;  // the next launch sets the active mutant again
}

// A translation unit at program start: a unit of a program built whole numbers its sites as the
// whole program does (from 0); a unit built by cltc-cc is given its first site.
inline unsigned register_tu(Tu tu) {
  State &s = state();
  tu.site_base = tu.table ? s.next_site : 0;
  if (tu.table) s.next_site += tu.sites;
  s.tus.push_back(tu);
  return tu.site_base;
}

struct TuRegistrar {
  explicit TuRegistrar(Tu tu) { register_tu(tu); }
};

}  // namespace host

namespace {
inline void cltc_mut_set_active(unsigned a) {
  g_active_host = a;
#if !defined(CUDAEMU)
  cudaMemcpyToSymbol(g_active_dev, &a, sizeof a);
#endif
}
inline void cltc_mut_pull(unsigned char *r) {
#if !defined(CUDAEMU)
  std::vector<unsigned char> mine(kSites);
  if (cudaMemcpyFromSymbol(mine.data(), g_reached_dev, kSites) == cudaSuccess)
    for (unsigned i = 0; i < kSites; ++i) r[i] |= mine[i];
#endif
  for (unsigned i = 0; i < kSites; ++i) r[i] |= g_reached_host[i];
}
#if CLTC_MUT_UNITS
// A unit built by cltc-cc registers its mutant table and its mutants' stable ids
// (cltestcheck/mutate/planner.py, unit_mode: a call at the end of its main file).
inline unsigned register_this_unit(const char *table, const char *selectors, unsigned mutants) {
  return host::register_tu(host::Tu{&cltc_mut_set_active, &cltc_mut_pull, kSites, mutants, table, selectors, 0, 0});
}
#else
static host::TuRegistrar cltc_mut_registrar(host::Tu{&cltc_mut_set_active, &cltc_mut_pull, kSites, 0, nullptr,
                                                     nullptr, 0, 0});
#endif
}  // namespace

}  // namespace mut
}  // namespace cltc

#endif  // CLTC_MUTATE_H
