#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  if (in[threadIdx.x] % 2 == 0) atomicAdd(&count, 1);
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = count;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
