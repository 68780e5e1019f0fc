// cltc search's distances: how close each comparison that decides a measured branch came to each
// outcome. `cltc search` builds the program with the coverage planner and its distance planner
// (cltestcheck/search/distance_planner.py), which turns such a condition `a < b` into
// `::cltc::search::lt(FLAG, a, b)` (FLAG: the coverage flag of the branch's true arm; the false arm's is
// FLAG + 1): the same result, the operands converted as the comparison converts them. On the cpu
// backend (CUDAEMU) the least distance seen to the true and to the false outcome is kept for each
// comparison and written at exit, and before a fault stops the program, to $CLTC_SEARCH_LOG (the
// `search_log` records of cudacommon/protocol.h). A distance is 0 where the outcome happened; otherwise,
// for integers, how much the left operand must change; for floating point, how many representable
// doubles lie between (a monotone measure: all a search needs). On a GPU the helpers only compare.
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
  rec::write_end(log.get());
}

inline unsigned long long steps(double d) {
  if (!(d >= 0.0) || d >= 1.8e19) return ~0ull;   // NaN operands, or farther than a u64 counts
  return static_cast<unsigned long long>(std::ceil(d));
}

inline void note(unsigned flag, double to_true, double to_false) {
  State &s = state();
  std::lock_guard<std::mutex> hold(s.m);
  if (!s.hooked) {
    s.hooked = true;
    ::cctk::host::at_end(write_log);
  }
  auto it = s.least.find(flag);
  unsigned long long t = steps(to_true), f = steps(to_false);
  if (it == s.least.end()) {
    s.least.emplace(flag, std::make_pair(t, f));
  } else {
    if (t < it->second.first) it->second.first = t;
    if (f < it->second.second) it->second.second = f;
  }
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

}  // namespace host

// (less: a < b; `strict`: the outcome flips one step past equality)
template <class A, class B>
inline void note_less(unsigned flag, bool r, A a, B b, bool strict) {
  double g = host::gap(a, b);
  if (g != g) return host::note(flag, r ? 0.0 : 1.8e19, r ? 1.8e19 : 0.0);
  if (strict) host::note(flag, r ? 0.0 : g + 1.0, r ? -g : 0.0);
  else host::note(flag, r ? 0.0 : g, r ? -g + 1.0 : 0.0);
}
// (`is_eq`: the comparison is ==; else !=)
template <class A, class B>
inline void note_equal(unsigned flag, bool r, A a, B b, bool is_eq) {
  double g = host::gap(a, b);
  bool equal = is_eq ? r : !r;
  double to_equal = equal ? 0.0 : (g != g ? 1.8e19 : std::fabs(g)), to_unequal = equal ? 1.0 : 0.0;
  host::note(flag, is_eq ? to_equal : to_unequal, is_eq ? to_unequal : to_equal);
}
#define CLTC_SEARCH_LESS(a, b, strict) note_less(flag, r, a, b, strict)
#define CLTC_SEARCH_EQUAL(a, b) note_equal(flag, r, a, b, true)
#define CLTC_SEARCH_NOT_EQUAL(a, b) note_equal(flag, r, a, b, false)
#else
#define CLTC_SEARCH_LESS(a, b, strict) (void)flag
#define CLTC_SEARCH_EQUAL(a, b) (void)flag
#define CLTC_SEARCH_NOT_EQUAL(a, b) (void)flag
#endif

// The comparisons, each as the operator with the distances noted (one per operator the planner wraps).
template <class A, class B>
CCTK_HD inline bool lt(unsigned flag, A a, B b) {
  bool r = a < b;
  CLTC_SEARCH_LESS(a, b, true);
  return r;
}
template <class A, class B>
CCTK_HD inline bool le(unsigned flag, A a, B b) {
  bool r = a <= b;
  CLTC_SEARCH_LESS(a, b, false);
  return r;
}
template <class A, class B>
CCTK_HD inline bool gt(unsigned flag, A a, B b) {
  bool r = a > b;
  CLTC_SEARCH_LESS(b, a, true);
  return r;
}
template <class A, class B>
CCTK_HD inline bool ge(unsigned flag, A a, B b) {
  bool r = a >= b;
  CLTC_SEARCH_LESS(b, a, false);
  return r;
}
template <class A, class B>
CCTK_HD inline bool eq(unsigned flag, A a, B b) {
  bool r = a == b;
  CLTC_SEARCH_EQUAL(a, b);
  return r;
}
template <class A, class B>
CCTK_HD inline bool ne(unsigned flag, A a, B b) {
  bool r = a != b;
  CLTC_SEARCH_NOT_EQUAL(a, b);
  return r;
}

#undef CLTC_SEARCH_LESS
#undef CLTC_SEARCH_EQUAL
#undef CLTC_SEARCH_NOT_EQUAL

}  // namespace search
}  // namespace cltc

#endif  // CLTC_SEARCH_H
