#include "harness.h"
// One thread reads and writes the same words many times: program order.
__global__ void k(const int *in, int *out, int n) {
  int i = blockIdx.x * 64 + threadIdx.x;
  out[i] = in[i];
  out[i] += out[i];
  atomicAdd(&out[i], 1);
  out[i] -= 1;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
