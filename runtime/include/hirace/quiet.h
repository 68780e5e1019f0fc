// The quiet forms of a site: accesses a proof found unable to race (instrument/intervals.py,
// apart.py, readonly_params.py, chosen by hirace/planner.py) test only their bounds inline, where the
// launch meets the proof's condition (the block fits the array, the index is the thread's own, the
// parameter is quiet in this launch), and take the whole check where it does not (`quiet_slow`);
// and the launch-condition tests the kernels evaluate (own_index, fold_index, lanes_apart).
#ifndef HIRACE_QUIET_H
#define HIRACE_QUIET_H

#include "bench_hooks.h"
#include "check.h"

namespace hirace {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: this unit's configuration's own)

// The whole check of an access whose quiet test failed, and what happens to it (the benchmarks put
// stand-ins in its place: bench_switches.h).
template <class T> CCTK_D inline T *quiet_slow(T *p, unsigned site, fsm::Access kind, void *sink,
                                               const volatile void *base, unsigned long long bytes,
                                               bool then_write = false) {
#if HIRACE_BENCH_QUIET_SLOW_HOOK   // (benchmarks only: a stand-in, bench_hooks.h)
  return bench::quiet_slow(p, site, kind, sink, base, bytes, then_write);
#else
  return check((const void *)p, sizeof(T), site, kind, base, bytes, then_write) ? p : diverted(p, sink);
#endif
}

// A read of a shared array that no write to it shares a barrier interval with (instrument/intervals.py):
// it cannot race, so only its bounds are checked, inline; one outside them takes the whole check,
// which reports it and diverts it.
#if HIRACE_BENCH_QUIET_READ_HOOK   // (benchmarks only: a quiet read gives its value, bench_hooks.h)
using bench::rd_bounds;
#else
template <class T> CCTK_D inline T *rd_bounds(T *p, unsigned site, const volatile void *base, unsigned long long bytes) {
  if (in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
#endif
// An atomic on a shared array in a barrier interval where every access to that array is an atomic
// (instrument/intervals.py): atomics never race with each other, so only its bounds are checked.
template <class T> CCTK_D inline T *atomic_block_bounds(T *p, unsigned site, const volatile void *base,
                                                        unsigned long long bytes) {
  if (in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kBlockAtomic, g_launch.sink_write, base, bytes);
}
template <class T> CCTK_D inline T *atomic_device_bounds(T *p, unsigned site, const volatile void *base,
                                                         unsigned long long bytes) {
  if (in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kDeviceAtomic, g_launch.sink_write, base, bytes);
}
// A write of each thread's own word of a shared array, in a barrier interval where no thread reads
// the array and every write to it has this form (instrument/intervals.py): `own` when the block
// fits the array, so no two threads share the word; it then races with nothing and lies in bounds.
template <class T> CCTK_D inline T *wr_private(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                               bool own) {
  return own ? p : quiet_slow(p, site, fsm::kWrite, g_launch.sink_write, base, bytes);
}
// A read of each thread's own word (or a read-modify-write of it) in a barrier interval where only
// its thread writes that word (instrument/intervals.py): `own` as for wr_private.
template <class T> CCTK_D inline T *rd_private(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                               bool own) {
  return own ? p : quiet_slow(p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
template <class T> CCTK_D inline T *rmw_private(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                                bool own) {
  if (own) return p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_write, base, bytes, true);
}
// An access of a declared shared array whose index keeps every other thread's access in its
// barrier interval off its word (instrument/apart.py), where the launch's block is `shaped` as the
// proof needs: its bounds are checked; otherwise the whole check.
template <class T> CCTK_D inline T *rd_apart(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                             bool shaped) {
  if (shaped && in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
template <class T> CCTK_D inline T *wr_apart(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                             bool shaped) {
  if (shaped && in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kWrite, g_launch.sink_write, base, bytes);
}
template <class T> CCTK_D inline T *rmw_apart(T *p, unsigned site, const volatile void *base, unsigned long long bytes,
                                              bool shaped) {
  if (shaped && in_declared(p, base, bytes)) return p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_write, base, bytes, true);
}
// An access of a device function through a reference parameter (hirace/proofs/call_context.py): `quiet` where
// its call proved its argument's word apart and in bounds, so it races with nothing; the whole check otherwise.
// An atomic of a device function through its pointer parameter (hirace/proofs/shared_calls.py): `base` the
// declared shared array a proved call found only atomics touch in its barrier interval (its size `bytes`),
// null in every other call; only its bounds in that array then, reported where it lies outside.
template <class T> CCTK_D inline T *atomic_block_ctx(T *p, unsigned site, const volatile void *base, unsigned long long bytes) {
  if (!base) return atomic_block(p, site);
  return in_declared(p, base, bytes) ? p : quiet_slow(p, site, fsm::kBlockAtomic, g_launch.sink_write, base, bytes);
}
template <class T> CCTK_D inline T *atomic_device_ctx(T *p, unsigned site, const volatile void *base, unsigned long long bytes) {
  if (!base) return atomic_device(p, site);
  return in_declared(p, base, bytes) ? p : quiet_slow(p, site, fsm::kDeviceAtomic, g_launch.sink_write, base, bytes);
}
template <class T> CCTK_D inline T *rd_ctx(T *p, unsigned site, bool quiet) { return quiet ? p : rd(p, site); }
template <class T> CCTK_D inline T *wr_ctx(T *p, unsigned site, bool quiet) { return quiet ? p : wr(p, site); }
template <class T> CCTK_D inline T *rmw_ctx(T *p, unsigned site, bool quiet) { return quiet ? p : rmw(p, site); }
// A read through the kernel's read-only parameter `base` (the `bit`-th): in a launch where that
// parameter is quiet, only the bounds of its buffer are checked, inline; otherwise the whole check.
#if HIRACE_BENCH_QUIET_READ_HOOK   // (benchmarks only: bench_hooks.h)
using bench::rd_param;
#else
template <class T> CCTK_D inline T *rd_param(T *p, unsigned site, const volatile void *base, unsigned bit) {
  const LaunchState &L = g_launch;
  unsigned long long a = (unsigned long long)p;
  if ((L.quiet_params >> bit & 1u) && a >= L.quiet_lo[bit] && a + sizeof(T) <= L.quiet_hi[bit]) {
    quiet_footprint(p, fsm::kRead, false, bit);
    return p;
  }
  return quiet_slow(p, site, fsm::kRead, L.sink_read, base, 0);
}
#endif
// A read through a read-only parameter that may be passed the pointer of an own parameter it reads at the
// indices of (readonly_params.py pairs): quiet as rd_param, but where the launch passed them one pointer
// (quiet_paired) only where that own parameter's index is own in the launch (`own`, its own variable).
template <class T> CCTK_D inline T *rd_paired(T *p, unsigned site, const volatile void *base, unsigned bit, bool own) {
  const LaunchState &L = g_launch;
  unsigned long long a = (unsigned long long)p;
  if ((L.quiet_params >> bit & 1u) && (own || !(L.quiet_paired >> bit & 1u)) && a >= L.quiet_lo[bit] &&
      a + sizeof(T) <= L.quiet_hi[bit]) {
    quiet_footprint(p, fsm::kRead, false, bit);
    return p;
  }
  return quiet_slow(p, site, fsm::kRead, L.sink_read, base, 0);
}
// Is c_tx * threadIdx.x + ... + c_bz * blockIdx.z (+ c_k * k, k the iteration number of a counted
// loop, below n_k) a different number for each thread of this launch and iteration, within a range
// narrower than 2^31 (so that the program's own arithmetic, modulo 2^32 or 2^64, keeps the numbers
// apart whatever the offset)? Mixed radix: taking the coordinates that vary (extent above 1) by |c|,
// each |c| exceeds the largest sum the smaller ones reach (ties ordered by position). Computed once
// per thread at the kernel's entry, in registers (constant indices only: a sort with computed
// indices put its arrays in local memory and cost srad_v2 ten times its own instructions). The
// offset is the same for every thread; it is taken only to evaluate it as the program writes it. A
// loop that runs no iteration counts as one; n_k beyond 2^31 (a step that is not positive) fails.
// (own_index_of: the test for the launch shape `block`, `grid`; on the host too, for quiet versions)
CCTK_HD inline bool own_index_of(dim3 block, dim3 grid, long long c_tx, long long c_ty, long long c_tz,
                                 long long c_bx, long long c_by, long long c_bz, long long c_k = 0,
                                 long long n_k = 1) {
  const long long c[7] = {c_tx, c_ty, c_tz, c_bx, c_by, c_bz, c_k};
  const long long n[7] = {block.x, block.y, block.z, grid.x, grid.y, grid.z, n_k < 1 ? 1 : n_k};
  long long a[7], span[7];   // |c|, and the range a coordinate's term spans (0 where it does not vary)
  bool ok = true;
#pragma unroll
  for (int i = 0; i < 7; ++i) {
    a[i] = c[i] < 0 ? -c[i] : c[i];
    bool varies = n[i] > 1, fits = a[i] < (1ll << 31) && n[i] < (1ll << 31);
    ok = ok && (!varies || (a[i] != 0 && fits));
    span[i] = varies && fits ? a[i] * (n[i] - 1) : 0;
    ok = ok && span[i] < (1ll << 31);
  }
  long long total = 0;
#pragma unroll
  for (int i = 0; i < 7; ++i) {
    long long below = 0;
#pragma unroll
    for (int j = 0; j < 7; ++j)
      if (j != i && (a[j] < a[i] || (a[j] == a[i] && j < i))) below += span[j];
    ok = ok && (n[i] <= 1 || a[i] > below);
    total += span[i];
  }
  return ok && total < (1ll << 31);
}
CCTK_D inline bool own_index(long long c_tx, long long c_ty, long long c_tz, long long c_bx, long long c_by,
                             long long c_bz, long long, long long c_k = 0, long long n_k = 1) {
  if (HIRACE_BENCH_OWN_INDEX_FREE) return true;   // benchmarks only: what the test costs
  return own_index_of(dim3(blockDim.x, blockDim.y, blockDim.z), dim3(gridDim.x, gridDim.y, gridDim.z), c_tx, c_ty,
                      c_tz, c_bx, c_by, c_bz, c_k, n_k);
}
// A butterfly's index (own_index.py Fold: sortingNetworks' `2 * i - (i & (stride - 1))` at + 0 and + stride,
// fastWalshTransform's `((pos - lo) << 2) + lo` at + 0 .. 3 strides): h[0..8] a form of own_index's (its
// coordinates outside the butterfly, offset, step and count), g[0..5] the butterfly's G (G & M, its
// coordinates' coefficients), m = M and r = R. With S = M + 1 a power of two, G = q * S + (G & M) and the
// butterfly is (R * q + k) * S + (G & M): apart for apart G and k below R, within R * (span(G) + 2S). So the
// index is own where G is own over its coordinates, the step is S and the count at most R (or no step), and
// the butterfly, as one more coordinate of that range, keeps the rest's mixed radix (own_index_of).
CCTK_HD inline bool fold_index_of(dim3 block, dim3 grid, const long long *h, const long long *g, long long m,
                                  long long r) {
  const long long n[6] = {block.x, block.y, block.z, grid.x, grid.y, grid.z};
  const long long s = m + 1;
  bool ok = r >= 2 && r < 64 && s > 0 && s < (1ll << 30) && (s & (s - 1)) == 0 && (h[8] <= 1 || (h[7] == s && h[8] <= r));
  long long gn[6], hn[6], span = 0;   // (the extents of G's coordinates, and of the others)
  for (int i = 0; i < 6; ++i) {
    bool in_g = g[i] != 0;
    ok = ok && (!in_g || h[i] == 0) && g[i] < (1ll << 31) && g[i] > -(1ll << 31);
    gn[i] = in_g ? n[i] : 1;
    hn[i] = in_g ? 1 : n[i];
    span += in_g ? (g[i] < 0 ? -g[i] : g[i]) * (n[i] - 1) : 0;
  }
  if (!ok || span >= (1ll << 31)) return false;
  const long long reach = r * (span + 2 * s);
  return reach < (1ll << 31) &&
         own_index_of(dim3(gn[0], gn[1], gn[2]), dim3(gn[3], gn[4], gn[5]), g[0], g[1], g[2], g[3], g[4], g[5]) &&
         own_index_of(dim3(hn[0], hn[1], hn[2]), dim3(hn[3], hn[4], hn[5]), h[0], h[1], h[2], h[3], h[4], h[5], 1,
                      reach + 1);
}
template <class... T> CCTK_D inline bool fold_index(T... values) {
  static_assert(sizeof...(T) == 17, "a form of 9 values, a butterfly's 6 coefficients, mask and radix");
  if (HIRACE_BENCH_OWN_INDEX_FREE) return true;   // benchmarks only: what the test costs
  const long long v[17] = {(long long)values...};
  return fold_index_of(dim3(blockDim.x, blockDim.y, blockDim.z), dim3(gridDim.x, gridDim.y, gridDim.z), v, v + 9,
                       v[15], v[16]);
}
// Can no thread's access at index W meet any thread's (its own too) at index R? Each index is a
// form of own_index's: 9 values, the six coordinates' coefficients, the offset, a counted loop's
// coefficient and count (0 and 1 without). W(t1) - R(t2) is a sum of digits a * d, one per
// coefficient magnitude a (W's coordinates counting up, R's down; equal magnitudes merged into one
// digit whose range is the sum of theirs), plus the offsets' difference; W meets R where some digits
// within their ranges make it 0. A search from the largest digit down tries, for each, only the
// values that leave a remainder the smaller digits can still reach: where none does, the forms lie
// apart (lud's internal blocks read the row above and the column left of the ones they write, nw's
// blocks the row above and the column left of their tile: one step each). A search past 256 steps
// proves nothing. All within 2^31, as for own_index.
CCTK_HD inline bool forms_apart_of(dim3 block, dim3 grid, const long long *w, const long long *r) {
  const long long n[7] = {block.x, block.y, block.z, grid.x, grid.y, grid.z, 1};
  long long a[14], lo[14], hi[14];
  int k = 0;
  bool ok = true;
  for (int side = 0; side < 2; ++side) {
    const long long *f = side ? r : w;
    for (int i = 0; i < 7; ++i) {
      long long c = f[i < 6 ? i : 7], m = i < 6 ? n[i] : (f[8] < 1 ? 1 : f[8]);
      ok = ok && m < (1ll << 31) && c < (1ll << 31) && c > -(1ll << 31);
      if (!ok || c == 0 || m <= 1) continue;
      long long mag = c < 0 ? -c : c;
      bool up = (c > 0) == (side == 0);   // W's positive terms and R's negative ones add
      int j = 0;
      while (j < k && a[j] != mag) ++j;
      if (j == k) { a[k] = mag; lo[k] = 0; hi[k] = 0; ++k; }
      if (up) hi[j] += m - 1; else lo[j] -= m - 1;
    }
  }
  if (!ok) return false;
  for (int i = 1; i < k; ++i)   // by magnitude, largest first (insertion: at most 14)
    for (int j = i; j > 0 && a[j - 1] < a[j]; --j) {
      long long t;
      t = a[j]; a[j] = a[j - 1]; a[j - 1] = t;
      t = lo[j]; lo[j] = lo[j - 1]; lo[j - 1] = t;
      t = hi[j]; hi[j] = hi[j - 1]; hi[j - 1] = t;
    }
  long long rlo[15], rhi[15];   // what digits j.. reach together
  rlo[k] = rhi[k] = 0;
  for (int j = k - 1; j >= 0; --j) {
    rlo[j] = rlo[j + 1] + a[j] * lo[j];
    rhi[j] = rhi[j + 1] + a[j] * hi[j];
  }
  long long target = r[6] - w[6];   // W(t1) = R(t2): the digits sum to R's offset less W's
  if (rhi[0] - rlo[0] >= (1ll << 31) || target >= (1ll << 31) || target <= -(1ll << 31)) return false;
  long long d[14], last[14], rem[15];
  int j = 0, steps = 0;
  rem[0] = target;
  bool fresh = true;   // (entering digit j; else trying its next value)
  while (j >= 0) {
    if (++steps > 256) return false;
    if (j == k) {
      if (rem[k] == 0) return false;   // the digits reach it: W meets R
      --j;
      fresh = false;
      continue;
    }
    if (fresh) {   // d * a[j] within [rem - rhi[j + 1], rem - rlo[j + 1]]
      long long need = rem[j] - rhi[j + 1], most = rem[j] - rlo[j + 1];
      long long from = need >= 0 ? (need + a[j] - 1) / a[j] : -((-need) / a[j]);
      long long to = most >= 0 ? most / a[j] : -((-most + a[j] - 1) / a[j]);
      d[j] = from < lo[j] ? lo[j] : from;
      last[j] = to > hi[j] ? hi[j] : to;
    } else {
      ++d[j];
    }
    if (d[j] > last[j]) {
      --j;
      fresh = false;
      continue;
    }
    rem[j + 1] = rem[j] - a[j] * d[j];
    ++j;
    fresh = true;
  }
  return true;
}
template <class... T> CCTK_D inline bool forms_apart(T... values) {
  static_assert(sizeof...(T) == 18, "two forms of 9 values");
  if (HIRACE_BENCH_OWN_INDEX_FREE) return true;   // benchmarks only: what the test costs
  const long long v[18] = {(long long)values...};
  return forms_apart_of(dim3(blockDim.x, blockDim.y, blockDim.z), dim3(gridDim.x, gridDim.y, gridDim.z), v, v + 9);
}
// Do the words of a shared array that lane + offset writes reach lie apart and inside the array?
// Each (offset, cap) pair: the threads whose lane index is below cap (and the block's extent n)
// write word offset + lane. Evaluated where such a write is (instrument/tree_forms.py offset_form).
template <class... T> CCTK_HD inline bool lanes_apart(long long n, long long size, T... pairs) {
  const long long v[] = {(long long)pairs...};
  constexpr int k = int(sizeof...(T)) / 2;
  bool ok = true;
#pragma unroll
  for (int i = 0; i < k; ++i) {
    long long lo = v[2 * i], cnt = v[2 * i + 1] < n ? v[2 * i + 1] : n;
    if (cnt <= 0) continue;
    ok = ok && lo >= 0 && lo + cnt <= size;
#pragma unroll
    for (int j = 0; j < i; ++j) {
      long long lo2 = v[2 * j], cnt2 = v[2 * j + 1] < n ? v[2 * j + 1] : n;
      ok = ok && (cnt2 <= 0 || lo == lo2 || lo + cnt <= lo2 || lo2 + cnt2 <= lo);   // (one offset: one thread a word)
    }
  }
  return ok;
}
// An access through an own parameter `base` (the `bit`-th quiet candidate: every access to it in
// the kernel has one index, which gives each thread its own element when `own`): in a launch where
// the parameter is quiet and the index is own, only the bounds of its buffer are checked, inline.
template <class T> CCTK_D inline bool own_quiet(T *p, unsigned bit, bool own) {
  const LaunchState &L = g_launch;
  unsigned long long a = (unsigned long long)p;
  return own && (L.quiet_params >> bit & 1u) && a >= L.quiet_lo[bit] && a + sizeof(T) <= L.quiet_hi[bit];
}
// (each quiet access in its launch's footprint too, where the program's host order is followed: check.h)
template <class T> CCTK_D inline T *rd_own(T *p, unsigned site, const volatile void *base, unsigned bit, bool own) {
  if (own_quiet(p, bit, own)) return quiet_footprint(p, fsm::kRead, false, bit), p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_read, base, 0);
}
template <class T> CCTK_D inline T *wr_own(T *p, unsigned site, const volatile void *base, unsigned bit, bool own) {
  if (own_quiet(p, bit, own)) return quiet_footprint(p, fsm::kWrite, false, bit), p;
  return quiet_slow(p, site, fsm::kWrite, g_launch.sink_write, base, 0);
}
template <class T> CCTK_D inline T *rmw_own(T *p, unsigned site, const volatile void *base, unsigned bit, bool own) {
  if (own_quiet(p, bit, own)) return quiet_footprint(p, fsm::kRead, true, bit), p;
  return quiet_slow(p, site, fsm::kRead, g_launch.sink_write, base, 0, true);
}
// A device-scope atomic through the kernel's atomic parameter `base` (the `bit`-th quiet candidate:
// only such atomics reach it): in a launch where the parameter is quiet, only its bounds are checked.
template <class T> CCTK_D inline T *atomic_param(T *p, unsigned site, const volatile void *base, unsigned bit) {
  if (own_quiet(p, bit, true)) return quiet_footprint(p, fsm::kDeviceAtomic, false, bit), p;
  return quiet_slow(p, site, fsm::kDeviceAtomic, g_launch.sink_write, base, 0);
}

}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace hirace

#endif  // HIRACE_QUIET_H
