#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  __shared__ int last;
  last = threadIdx.x;  // RACE
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = last;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
