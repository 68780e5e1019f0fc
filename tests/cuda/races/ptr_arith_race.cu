#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  int *p = out + blockIdx.x * 64;
  *(p + threadIdx.x / 2) = threadIdx.x;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
