#include "harness.h"
// Message passing between blocks through a flag set with a block-scope atomic (atomicExch_block): the
// release's scope does not include the other block, so the fences do not make it synchronise, a race.
__global__ void k(const int *in, int *out, int n) {
  int *flag = &out[0], *data = &out[64];
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = in[1] + in[2];  // RACE
    __threadfence();
    atomicExch_block(flag, 1);  // RACE
  } else if (blockIdx.x == 1) {
    while (atomicAdd(flag, 0) == 0) {}  // RACE
    __threadfence();
    out[128] = data[0];  // RACE
  }
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
