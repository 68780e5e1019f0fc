#include "stencil.h"

// a 3-point average through a shared tile with its halo: race-free
__global__ void stencil(const float *in, float *out, int n) {
  __shared__ float tile[TILE + 2];
  int i = blockIdx.x * TILE + threadIdx.x;
  int t = threadIdx.x + 1;
  tile[t] = i < n ? in[i] : 0.0f;
  if (threadIdx.x == 0) tile[0] = i > 0 ? in[i - 1] : 0.0f;
  if (threadIdx.x == TILE - 1) tile[TILE + 1] = i + 1 < n ? in[i + 1] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = (tile[t - 1] + tile[t] + tile[t + 1]) / 3.0f;
}

void stencil_step(const float *d_in, float *d_out, int n) {
  stencil<<<(n + TILE - 1) / TILE, TILE>>>(d_in, d_out, n);
}
