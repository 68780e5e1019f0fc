// This translation unit's part of the host side (in an anonymous namespace: every unit has its own):
// the read-back of its device arrays, g_bits' rows folded into its flags and its counts and
// divergences added to the totals at its first ids, and its registration, at start-up for a unit
// of a program built whole, through `register_this_unit` (called from the end of its file) for a
// unit built by cltc-cc (CLTC_COV_UNITS=1).
#ifndef CLTC_COVERAGE_UNIT_H
#define CLTC_COVERAGE_UNIT_H

#include "coverage_host_state.h"

#include <cstdio>
#include <vector>

namespace cltc {
namespace cov {

namespace {
// This unit's flags, ORed into the program's at the unit's first ids.
inline bool cltc_pull_this_tu(const host::Tu &tu, host::Totals &t) {
  std::vector<unsigned char> mine(kFlags), bmine(kBarrierFlags);
  std::vector<unsigned long long> cmine(kCountSlots), bcmine(kBarrierCountSlots);
  cudaError_t e = cudaMemcpyFromSymbol(mine.data(), g_flags, kFlags);
  if (e == cudaSuccess) e = cudaMemcpyFromSymbol(bmine.data(), g_barrier_flags, kBarrierFlags);
  if (e == cudaSuccess && kCounts) e = cudaMemcpyFromSymbol(cmine.data(), g_counts, sizeof(unsigned long long) * kCountSlots);
  if (e == cudaSuccess && kCounts)
    e = cudaMemcpyFromSymbol(bcmine.data(), g_barrier_counts, sizeof(unsigned long long) * kBarrierCountSlots);
  std::vector<unsigned long long> bits(kBitSlots * kBitRow);
  if (e == cudaSuccess) e = cudaMemcpyFromSymbol(bits.data(), g_bits, sizeof(unsigned long long) * bits.size());
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cltc coverage: reading the coverage flags failed: %s\n", cudaGetErrorString(e));
    return false;
  }
  for (unsigned slot = 1; slot < kBitSlots; ++slot)
    for (unsigned w = 0; w < kBitRow; ++w) bits[w] |= bits[slot * kBitRow + w];
  auto bit = [&](unsigned i) { return unsigned(bits[i / 64] >> (i % 64) & 1); };
  for (unsigned i = 0; i < kFlags; ++i) mine[i] |= bit(i);
  for (unsigned i = 0; i < kBarrierFlags; ++i) bmine[i] |= bit(kBarrierBit0 + i);
  unsigned nf = tu.flags < kFlags ? tu.flags : kFlags, nb = tu.barriers < kBarriers ? tu.barriers : kBarriers;
  for (unsigned i = 0; i < nf; ++i) t.flags[tu.flag_base + i] |= mine[i];
  for (unsigned i = 0; kCounts && i < nf; ++i) {
    t.counts[tu.flag_base + i] += cmine[i];
    t.flags[tu.flag_base + i] |= cmine[i] != 0;
  }
  for (unsigned b = 0; kCounts && b < nb; ++b) t.barrier_counts[tu.barrier_base + b] += bcmine[b];
  for (unsigned i = 0; i < 2 * nb; ++i) t.barrier_flags[2 * tu.barrier_base + i] |= bmine[i];
  unsigned n = 0;
  cudaMemcpyFromSymbol(&n, g_divergence_count, sizeof n);
  std::vector<Divergence> d(n < kDivergenceCap ? n : kDivergenceCap);
  if (!d.empty()) cudaMemcpyFromSymbol(d.data(), g_divergence, d.size() * sizeof(Divergence));
  for (Divergence &x : d) x.barrier += tu.barrier_base;
  t.divergences.insert(t.divergences.end(), d.begin(), d.end());
  t.divergence_total += n;
  unsigned zero = 0;
  cudaMemcpyToSymbol(g_divergence_count, &zero, sizeof zero);
  return true;
}
inline void cltc_set_barriers_this_tu(const BarrierState &b) {
  cudaError_t e = cudaMemcpyToSymbol(g_barriers, &b, sizeof b);
  if (e != cudaSuccess) host::fail(e, "barrier counter setup");
}
#if CLTC_COV_UNITS
// A unit built by cltc-cc registers its item table (cltestcheck/coverage/planner.py, unit_mode: a
// call at the end of its main file) and is given its first flag id among the program's.
inline unsigned register_this_unit(const char *table, unsigned flags, unsigned barriers) {
  return host::register_tu(host::Tu{&cltc_pull_this_tu, &cltc_set_barriers_this_tu, flags, barriers, 0, 0, table, -1, kCounts},
                           true);
}
#else
static host::TuRegistrar cltc_tu_registrar(host::Tu{&cltc_pull_this_tu, &cltc_set_barriers_this_tu, kFlags, kBarriers,
                                                    0, 0, nullptr, -1, kCounts});
#endif
}  // namespace

}  // namespace cov
}  // namespace cltc

#endif  // CLTC_COVERAGE_UNIT_H
