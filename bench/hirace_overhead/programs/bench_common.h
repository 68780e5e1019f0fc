// Shared by the overhead benchmarks: fill, time one launch (after a warm-up) with
// CUDA events, print `kernel_ms <t>` and a checksum.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static unsigned bench_rng = 7u;
static inline unsigned brnd() { bench_rng = bench_rng * 1664525u + 1013904223u; return bench_rng >> 8; }
static inline int arg_n(int argc, char **argv, int def) { return argc > 1 ? atoi(argv[1]) : def; }

struct Timer {
  cudaEvent_t a, b;
  Timer() { cudaEventCreate(&a); cudaEventCreate(&b); cudaEventRecord(a); }
  float stop() { float ms; cudaEventRecord(b); cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); return ms; }
};
