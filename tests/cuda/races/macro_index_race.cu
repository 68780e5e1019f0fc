#include "harness.h"
#define HALF(t) ((t) / 2)
__global__ void k(const int *in, int *out, int n) {
  out[HALF(threadIdx.x)] = in[threadIdx.x];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
