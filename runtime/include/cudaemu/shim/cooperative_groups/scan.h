// cpu-backend <cooperative_groups/scan.h>: inclusive and exclusive scans over a tile or coalesced group.
#pragma once
#include "reduce.h"
namespace cooperative_groups {
template <class T, class Op>
T inclusive_scan(const coalesced_group &g, T v, Op op, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) {
  T all[32];
  g.gather(v, all, f, ln);
  T r = all[0];
  for (unsigned i = 1; i <= g.thread_rank(); ++i) r = op(r, all[i]);
  return r;
}
template <class T> T inclusive_scan(const coalesced_group &g, T v) { return inclusive_scan(g, v, plus<T>()); }
template <class T, class Op>
T exclusive_scan(const coalesced_group &g, T v, Op op, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) {
  T all[32];
  g.gather(v, all, f, ln);
  T r = T();
  for (unsigned i = 0; i < g.thread_rank(); ++i) r = i ? op(r, all[i]) : all[i];
  return r;
}
template <class T> T exclusive_scan(const coalesced_group &g, T v) { return exclusive_scan(g, v, plus<T>()); }
}  // namespace cooperative_groups
