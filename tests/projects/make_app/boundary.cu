#include "stencil.h"

// both ends of the array keep the value of their neighbour: one thread per end (race-free)
__global__ void boundary(float *out, int n) {
  if (threadIdx.x == 0) out[0] = out[1];
  if (threadIdx.x == 1) out[n - 1] = out[n - 2];
}

void fix_boundary(float *d_out, int n) {
  boundary<<<1, 2>>>(d_out, n);
  cudaDeviceSynchronize();
}
