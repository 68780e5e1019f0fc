// What every part of cltc's coverage runtime shares: the sizes a unit is built with (CLTC_COV_FLAGS,
// CLTC_COV_BARRIERS, CLTC_COV_COUNTS, CLTC_COV_BIT_SLOTS: the planner's -D, defaults in the generated
// cudacommon/protocol.h), the linkage of what touches a unit's own flags (CLTC_COV_UNIT_BEGIN: internal
// in a unit built by cltc-cc, CLTC_COV_UNITS=1), the divergence and barrier-state records, the unit's
// device arrays (flags, counters, divergences) and the layout of g_bits, the rows of words per SM that
// kernels' leaving warps OR their register-held items into (kBitRow, kBarrierBit0).
#ifndef CLTC_COVERAGE_STATE_H
#define CLTC_COVERAGE_STATE_H

#include "cudacommon/host_runtime.h"
#include "cudacommon/protocol.h"   // the build macros' defaults, the bit rows' lines

#include <cstdio>

#include "cltc/linkage.h"

#include "cudacommon/qualifiers.h"

// A unit built by cltc-cc: what touches the unit's own flags has internal linkage (a host-compiled
// function of one unit, as the cpu backend builds them, must never be taken for another's).
#if CLTC_COV_UNITS
#define CLTC_COV_UNIT_BEGIN namespace {
#define CLTC_COV_UNIT_END }
#else
#define CLTC_COV_UNIT_BEGIN
#define CLTC_COV_UNIT_END
#endif

namespace cltc {
namespace cov {

constexpr unsigned kFlags = CLTC_COV_FLAGS;
constexpr unsigned kBarriers = CLTC_COV_BARRIERS;
constexpr unsigned kBarrierFlags = kBarriers ? 2 * kBarriers : 1;
constexpr unsigned kDivergenceCap = 256;
constexpr bool kCounts = CLTC_COV_COUNTS != 0;
constexpr unsigned kCountSlots = kCounts ? kFlags : 1;
constexpr unsigned kBarrierCountSlots = kCounts && kBarriers ? kBarriers : 1;

// A barrier that only part of a block reached: found by the block's last thread.
struct Divergence {
  unsigned barrier, bx, by, bz, arrived, threads;
};

// Where the per-launch barrier bookkeeping lives (set by the host when it grows).
struct BarrierState {
  unsigned *arrivals;  // [linear block][barrier]
  unsigned *exits;     // [linear block]: threads of the block that have finished
};

alignas(16) CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned char g_flags[(kFlags + 15) & ~15u];
alignas(16) CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned char g_barrier_flags[(kBarrierFlags + 15) & ~15u];
// The flags of the items kernels note in registers (Seen), as bits: flag i is bit i, barrier flag i
// bit sizeof(g_flags) + i, in one row of words per SM (a kernel's few items mostly share a word); the
// lanes of a warp leaving together OR their bits into their SM's row, an atomic whose result nobody
// waits for, and the host ORs the rows into the flags. Rows of their own: 64 rows shared by two or
// three SMs each cost stencil 5 points more on an H100, 8 rows cost reduce and stencil 120 and 230.
// (The layout follows from the three arrays' sizes alone: cltestcheck/gpu_host.py reads it so.)
constexpr unsigned kBarrierBit0 = sizeof(g_flags);
constexpr unsigned kBitRow =   // whole 128-byte lines (instrument/protocol.py bit_row_words)
    (kBarrierBit0 + sizeof(g_barrier_flags) + ::cctk::kBitRowLineBits - 1) / ::cctk::kBitRowLineBits *
    ::cctk::kBitRowLineWords;
constexpr unsigned kBitSlots = CLTC_COV_BIT_SLOTS;
alignas(128) CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned long long g_bits[kBitSlots * kBitRow];
CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned long long g_counts[kCountSlots];
CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned long long g_barrier_counts[kBarrierCountSlots];   // arrivals
CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL BarrierState g_barriers;
CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL Divergence g_divergence[kDivergenceCap];
CLTC_TU_LOCAL CCTK_DEVICE_GLOBAL unsigned g_divergence_count;

}  // namespace cov
}  // namespace cltc

#endif  // CLTC_COVERAGE_STATE_H
