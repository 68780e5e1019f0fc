#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  atomicAdd(&out[0], 1);  // RACE
  out[1 + threadIdx.x] = out[0];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
