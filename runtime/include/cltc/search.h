// cltc search's distances: how close each comparison that decides a measured branch or loop came to
// each outcome. `cltc search` builds the program with the coverage planner and its distance planner
// (cltestcheck/search/distance_planner.py), which turns such a branch condition `a < b` into
// `::cltc::search::lt(FLAG, a, b)` (FLAG: the coverage flag of the branch's true arm; the false arm's is
// FLAG + 1), and such a loop condition into `::cltc::search::loop_lt(BASE, L.n, a, b)` (BASE: the loop's
// first coverage flag, L the loop's coverage record, `n` the iterations of this entry so far, at most 2):
// the same result, the operands converted as the comparison converts them. On the cpu backend (CUDAEMU)
// the least distance seen to the true and to the false outcome is kept for each branch comparison, and
// for each loop case (body 0 times: to false at an entry's first test; once and more than once: to false
// and to true at its second), and written at exit, and before a fault stops the program, to
// $CLTC_SEARCH_LOG (the `search_log` records of cudacommon/protocol.h). A distance is 0 where the outcome
// happened; otherwise, for integers, how much the left operand must change; for floating point, how many
// representable doubles lie between (a monotone measure: all a search needs). On a GPU the helpers only
// compare.
#ifndef CLTC_SEARCH_H
#define CLTC_SEARCH_H

#include "cudacommon/qualifiers.h"

#include <type_traits>

#if defined(CUDAEMU)
#include "cudacommon/host_runtime.h"

#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#endif

namespace cltc {
namespace search {

#if defined(CUDAEMU)
namespace host {

struct State {
  std::mutex m;
  std::map<unsigned, std::pair<unsigned long long, unsigned long long>> least;   // flag -> (to true, to false)
  std::map<unsigned, unsigned long long> loops;                                 // a loop case's flag -> distance
  bool hooked = false;
};

inline State &state() {
  static State s;
  return s;
}

inline void write_log() {
  State &s = state();
  std::lock_guard<std::mutex> hold(s.m);
  const char *path = ::cctk::host::option(::cctk::env::kCltcSearchLog);
  ::cctk::host::LogFile log(path ? path : "");
  if (!log) return;
  namespace rec = ::cctk::search_log;   // record writers generated from instrument/protocol.py
  for (const auto &kv : s.least) rec::write_cmp(log.get(), kv.first, kv.second.first, kv.second.second);
  for (const auto &kv : s.loops) rec::write_loop(log.get(), kv.first, kv.second);
  rec::write_end(log.get());
}

inline unsigned long long steps(double d) {
  if (!(d >= 0.0) || d >= 1.8e19) return ~0ull;   // NaN operands, or farther than a u64 counts
  return static_cast<unsigned long long>(std::ceil(d));
}

inline void hook(State &s) {   // (s.m held)
  if (!s.hooked) {
    s.hooked = true;
    ::cctk::host::at_end(write_log);
  }
}

inline void note(unsigned flag, double to_true, double to_false) {
  State &s = state();
  std::lock_guard<std::mutex> hold(s.m);
  hook(s);
  auto it = s.least.find(flag);
  unsigned long long t = steps(to_true), f = steps(to_false);
  if (it == s.least.end()) {
    s.least.emplace(flag, std::make_pair(t, f));
  } else {
    if (t < it->second.first) it->second.first = t;
    if (f < it->second.second) it->second.second = f;
  }
}

inline void note_loop(unsigned flag, double to_case) {
  State &s = state();
  std::lock_guard<std::mutex> hold(s.m);
  hook(s);
  unsigned long long d = steps(to_case);
  auto it = s.loops.find(flag);
  if (it == s.loops.end()) s.loops.emplace(flag, d);
  else if (d < it->second) it->second = d;
}

// doubles in order as integers (IEEE sign and magnitude folded): their difference counts the values between
inline double ordered(double x) {
  long long b;
  std::memcpy(&b, &x, sizeof b);
  return b < 0 ? -static_cast<double>(b & 0x7fffffffffffffffLL) : static_cast<double>(b);
}

template <class C>
inline double gap_of(C x, C y, std::true_type) {
  return ordered(static_cast<double>(x)) - ordered(static_cast<double>(y));
}
template <class C>
inline double gap_of(C x, C y, std::false_type) {
  return static_cast<double>(x) - static_cast<double>(y);
}

// an operand as a number (an enumeration's value as its underlying type)
template <class T>
using Number = typename std::conditional<std::is_enum<T>::value, std::underlying_type<T>, std::common_type<T>>::type::type;

// a - b, in the type the comparison compares in
template <class A, class B>
inline double gap(A a, B b) {
  using C = typename std::common_type<Number<A>, Number<B>>::type;
  return gap_of<C>(static_cast<C>(static_cast<Number<A>>(a)), static_cast<C>(static_cast<Number<B>>(b)),
                   std::is_floating_point<C>());
}

// (to true, to false) of a comparison: less, a < b (`strict`: the outcome flips one step past
// equality); equal, a == b (`is_eq`; else a != b)
template <class A, class B>
inline std::pair<double, double> less(bool r, A a, B b, bool strict) {
  double g = gap(a, b);
  if (g != g) return {r ? 0.0 : 1.8e19, r ? 1.8e19 : 0.0};
  if (strict) return {r ? 0.0 : g + 1.0, r ? -g : 0.0};
  return {r ? 0.0 : g, r ? -g + 1.0 : 0.0};
}
template <class A, class B>
inline std::pair<double, double> equal(bool r, A a, B b, bool is_eq) {
  double g = gap(a, b);
  bool same = is_eq ? r : !r;
  double to_equal = same ? 0.0 : (g != g ? 1.8e19 : std::fabs(g)), to_unequal = same ? 1.0 : 0.0;
  return is_eq ? std::make_pair(to_equal, to_unequal) : std::make_pair(to_unequal, to_equal);
}

inline void branch(unsigned flag, std::pair<double, double> d) { note(flag, d.first, d.second); }

// a loop's test number n + 1 of this entry (n: iterations so far): the case each outcome gives
inline void loop(unsigned base, unsigned n, std::pair<double, double> d) {
  if (n == 0) {
    note_loop(base + ::cctk::kLoopZero, d.second);
  } else if (n == 1) {
    note_loop(base + ::cctk::kLoopOne, d.second);
    note_loop(base + ::cctk::kLoopMany, d.first);
  }
}

}  // namespace host
#define CLTC_SEARCH_BRANCH(d) host::branch(flag, d)
#define CLTC_SEARCH_LOOP(d) host::loop(base, n, d)
#else
#define CLTC_SEARCH_BRANCH(d) (void)flag
#define CLTC_SEARCH_LOOP(d) ((void)base, (void)n)
#endif

// The comparisons, each as the operator with the distances noted (one per operator the planner wraps):
// NAME(flag, a, b) for a branch's condition, loop_NAME(base, n, a, b) for a loop's.
#define CLTC_SEARCH_COMPARISON(NAME, OP, DIST)                                                  \
  template <class A, class B>                                                                   \
  CCTK_HD inline bool NAME(unsigned flag, A a, B b) {                                           \
    bool r = a OP b;                                                                            \
    CLTC_SEARCH_BRANCH(DIST);                                                                   \
    return r;                                                                                   \
  }                                                                                             \
  template <class A, class B>                                                                   \
  CCTK_HD inline bool loop_##NAME(unsigned base, unsigned n, A a, B b) {                        \
    bool r = a OP b;                                                                            \
    CLTC_SEARCH_LOOP(DIST);                                                                     \
    return r;                                                                                   \
  }

CLTC_SEARCH_COMPARISON(lt, <, host::less(r, a, b, true))
CLTC_SEARCH_COMPARISON(le, <=, host::less(r, a, b, false))
CLTC_SEARCH_COMPARISON(gt, >, host::less(r, b, a, true))
CLTC_SEARCH_COMPARISON(ge, >=, host::less(r, b, a, false))
CLTC_SEARCH_COMPARISON(eq, ==, host::equal(r, a, b, true))
CLTC_SEARCH_COMPARISON(ne, !=, host::equal(r, a, b, false))

#undef CLTC_SEARCH_COMPARISON
#undef CLTC_SEARCH_BRANCH
#undef CLTC_SEARCH_LOOP

}  // namespace search
}  // namespace cltc

#endif  // CLTC_SEARCH_H
