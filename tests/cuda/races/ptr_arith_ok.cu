#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  int *p = out + blockIdx.x * 64;
  const int *q = in + threadIdx.x;
  *(p + threadIdx.x) = *q + 1;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
