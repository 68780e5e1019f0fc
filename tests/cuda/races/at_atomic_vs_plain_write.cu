#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  if (threadIdx.x == 5) out[0] = 100;  // RACE
  else atomicAdd(&out[0], 1);  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
