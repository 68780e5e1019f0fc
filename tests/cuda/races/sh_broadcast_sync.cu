#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  __shared__ int v;
  if (threadIdx.x == 0) v = in[blockIdx.x];
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = v;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
