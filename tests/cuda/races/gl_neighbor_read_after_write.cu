#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];  // RACE
  out[i] += out[(i + 1) % 128];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
