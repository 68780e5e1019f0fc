#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  if (blockIdx.x == 0) atomicAdd(&out[0], 1);  // RACE
  __syncthreads();
  if (blockIdx.x == 1 && threadIdx.x == 0) out[1] = out[0];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
