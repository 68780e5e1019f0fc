#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  atomicAdd_block(&out[blockIdx.x], 1);
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
