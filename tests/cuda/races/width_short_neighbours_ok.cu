#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  short *s = reinterpret_cast<short *>(out);
  s[blockIdx.x * 64 + threadIdx.x] = (short)in[threadIdx.x];
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
