// cpu-backend <cooperative_groups/reduce.h>: the functors and cg::reduce over a tile or coalesced group.
#pragma once
#include "../cooperative_groups.h"
namespace cooperative_groups {
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

template <class T, class Op>
T reduce(const coalesced_group &g, T v, Op op, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) {
  T all[32];
  g.gather(v, all, f, ln);
  T r = all[0];
  for (unsigned i = 1; i < g.size(); ++i) r = op(r, all[i]);
  return r;
}
template <class T, class Op>
T reduce(const multi_warp_group &g, T v, Op op, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) {
  std::vector<T> all(g.size());
  unsigned n = g.gather(v, all.data(), f, ln);
  T r = all[0];
  for (unsigned i = 1; i < n; ++i) r = op(r, all[i]);
  return r;
}
}  // namespace cooperative_groups
