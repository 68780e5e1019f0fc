#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  if (blockIdx.x == 0) out[threadIdx.x] = in[threadIdx.x];  // RACE
  __syncthreads();
  if (blockIdx.x == 1) out[64 + threadIdx.x] = out[threadIdx.x];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
