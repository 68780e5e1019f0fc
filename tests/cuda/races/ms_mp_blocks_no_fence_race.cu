#include "harness.h"
// Message passing between blocks whose producer raises the flag without a fence: nothing orders its
// data before the flag for the consumer (the consumer's fence alone does not), a race.
__global__ void k(const int *in, int *out, int n) {
  int *flag = &out[0], *data = &out[64];
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = in[1] + in[2];  // RACE
    atomicExch(flag, 1);
  } else if (blockIdx.x == 1) {
    while (atomicAdd(flag, 0) == 0) {}
    __threadfence();
    out[128] = data[0];  // RACE
  }
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
