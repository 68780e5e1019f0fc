#include "harness.h"
#define SLOT(b, t) ((b) * 64 + (t))
__global__ void k(const int *in, int *out, int n) {
  out[SLOT(blockIdx.x, threadIdx.x)] = in[threadIdx.x] * 3;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
