#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  out[0] = in[blockIdx.x * blockDim.x + threadIdx.x];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
