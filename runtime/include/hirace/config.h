// hirace runtime configuration shared by nvcc, the cpu backend and host tools.
#ifndef HIRACE_CONFIG_H
#define HIRACE_CONFIG_H

#include "cudacommon/qualifiers.h"

// The parts of the check that one call of `check` runs (locate, check_words, update): on the cpu
// backend always inlined into it, so that one out-of-line call makes the whole check (g++ left them
// apart, with their calls and spills). On a GPU the compiler's choice stands.
#if defined(CUDAEMU) && !defined(__CUDA_ARCH__)
#define HIRACE_PART __attribute__((always_inline))
#else
#define HIRACE_PART
#endif

#endif  // HIRACE_CONFIG_H
