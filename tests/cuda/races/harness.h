// Host side shared by the race corpus: two int buffers of n elements, filled,
// handed to the kernel under test; finish() synchronises and frees them.
// Each program marks the lines of its racing accesses with `// RACE`; a
// program with no marker is race-free.
#pragma once
#include <cstdio>
#include <cuda_runtime.h>

struct Bufs { int *in, *out; int n; };

static Bufs setup(int n = 4096) {
  Bufs b;
  b.n = n;
  int *h = new int[n];
  for (int i = 0; i < n; ++i) h[i] = i % 17;
  cudaMalloc(&b.in, n * sizeof(int));
  cudaMalloc(&b.out, n * sizeof(int));
  cudaMemcpy(b.in, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(b.out, 0, n * sizeof(int));
  delete[] h;
  return b;
}

static int finish(Bufs b) {
  cudaDeviceSynchronize();
  int h0 = 0;
  cudaMemcpy(&h0, b.out, sizeof h0, cudaMemcpyDeviceToHost);
  printf("out[0] = %d\n", h0);
  cudaFree(b.in);
  cudaFree(b.out);
  return 0;
}
