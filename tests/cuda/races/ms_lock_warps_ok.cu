#include "harness.h"
// A spin lock between the warps of one block (one lane each), with block-scope atomics and fences.
// Race-free.
__global__ void k(const int *in, int *out, int n) {
  int *m = &out[0];
  if (threadIdx.x % 32 != 0) return;
  while (atomicCAS_block(m, 0, 1) != 0) {}
  __threadfence_block();
  out[64] += in[threadIdx.x];
  __threadfence_block();
  atomicExch_block(m, 0);
}
int main() {
  Bufs b = setup();
  k<<<1, 128>>>(b.in, b.out, b.n);
  return finish(b);
}
