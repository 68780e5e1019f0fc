#include "harness.h"
// an atomic helper with a default argument, called without it
__device__ void add(unsigned *b, unsigned d = 3u) { atomicAdd(b + d, 1u); }
__global__ void k(int *out, int *in, int n) {
  __shared__ unsigned s[16];
  if (threadIdx.x < 16) s[threadIdx.x] = 0;
  __syncthreads();
  add(s);
  unsigned seen = 0;
  __syncthreads();
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  out[0] = (int)seen + in[pos];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<8, 64>>>(b.out, b.in, b.n);
  return finish(b);
}
