#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  if (threadIdx.x == 0) atomicExch(&out[0], 1);  // RACE
  if (threadIdx.x == 40) out[2] = out[0];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
