#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  atomicAdd(&out[0], in[threadIdx.x]);
  atomicOr(&out[1], 1 << (threadIdx.x % 31));
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
