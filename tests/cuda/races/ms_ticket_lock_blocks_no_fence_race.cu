#include "harness.h"
// A ticket lock between blocks whose holder serves the next ticket without a fence after its work: the
// next holder's work races with it.
__global__ void k(const int *in, int *out, int n) {
  unsigned *next = (unsigned *)&out[0], *serving = (unsigned *)&out[1];
  if (threadIdx.x != 0) return;
  unsigned ticket = atomicAdd(next, 1u);
  while (atomicAdd(serving, 0u) != ticket) {}
  __threadfence();
  out[64] = out[64] * 2 + in[blockIdx.x];  // RACE
  atomicAdd(serving, 1u);
}
int main() {
  Bufs b = setup();
  k<<<4, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
