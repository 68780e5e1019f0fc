#include "harness.h"
// atomicAdd_block only orders the threads of one block.
__global__ void k(const int *in, int *out, int n) {
  atomicAdd_block(&out[0], 1);  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
