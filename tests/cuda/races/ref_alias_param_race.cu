#include "harness.h"
// the same through a reference parameter of a device function
__device__ void clamp_to(int &i, int hi) { if (i > hi) i = hi; }
__global__ void k(const int *in, int *out, int n) {
  __shared__ int tile[64];
  int i = threadIdx.x;
  clamp_to(i, 0);
  tile[i] = in[threadIdx.x];  // RACE
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
