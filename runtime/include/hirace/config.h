// hirace runtime configuration shared by nvcc, the cpu backend and host tools.
#ifndef HIRACE_CONFIG_H
#define HIRACE_CONFIG_H

#include "cudacommon/qualifiers.h"

// The namespace of every function whose code depends on a unit's own configuration (the macros the
// planner sets per unit: lane groups, grid syncs, memory sync, streams, whole warps). Units built one
// by one (hirace-cc) may differ in them, and a function `inline` in several units is one function to
// the linker: on the cpu backend (host code) and under -rdc it would keep one unit's version for every
// unit (a unit with syncs of part of a warp checked as one without: false races). Inside namespace
// hirace, as `inline namespace HIRACE_UNIT_CONFIG { ... }`, each configuration's functions are its
// own; what units share (LaunchState, records, the host's state) stays outside.
#define HIRACE_UNIT_CONFIG_(a, b, c, d, e) unit_config_##a##b##c##d##e
#define HIRACE_UNIT_CONFIG_X(a, b, c, d, e) HIRACE_UNIT_CONFIG_(a, b, c, d, e)
#define HIRACE_UNIT_CONFIG \
  HIRACE_UNIT_CONFIG_X(HIRACE_LANE_GROUPS, HIRACE_GRID_SYNCS, HIRACE_MEMORY_SYNC, HIRACE_STREAMS, HIRACE_WHOLE_WARPS)

// The parts of the check that one call of `check` runs (locate, check_words, update): on the cpu
// backend always inlined into it, so that one out-of-line call makes the whole check (g++ left them
// apart, with their calls and spills). On a GPU the compiler's choice stands.
#if defined(CUDAEMU) && !defined(__CUDA_ARCH__)
#define HIRACE_PART __attribute__((always_inline))
#else
#define HIRACE_PART
#endif

#endif  // HIRACE_CONFIG_H
