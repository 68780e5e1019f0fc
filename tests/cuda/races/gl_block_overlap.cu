#include "harness.h"
// Off by one: each block's last thread writes the first slot of the next block.
__global__ void k(const int *in, int *out, int n) {
  int i = blockIdx.x * 64 + threadIdx.x + (threadIdx.x == 63 ? 1 : 0);
  out[i] = in[threadIdx.x];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
