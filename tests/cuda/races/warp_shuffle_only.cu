#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  int v = in[threadIdx.x];
  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) out[blockIdx.x * 2 + threadIdx.x / 32] = v;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
