#include "harness.h"
// A spin lock between the warps of one block whose release has no fence: the next holder's critical
// section races with this one's.
__global__ void k(const int *in, int *out, int n) {
  int *m = &out[0];
  if (threadIdx.x % 32 != 0) return;
  while (atomicCAS_block(m, 0, 1) != 0) {}
  __threadfence_block();
  out[64] += in[threadIdx.x];  // RACE
  atomicExch_block(m, 0);
}
int main() {
  Bufs b = setup();
  k<<<1, 128>>>(b.in, b.out, b.n);
  return finish(b);
}
