#include "harness.h"
// Two warps add to one shared counter (each warp's lanes in one instruction); a
// __syncthreads orders the adds before every thread reads the total: race-free.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  atomicAdd(&count, in[threadIdx.x] & 1);
  __syncthreads();
  out[threadIdx.x] = count;
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
