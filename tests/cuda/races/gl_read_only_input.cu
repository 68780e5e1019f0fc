#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = in[0] + in[1] + in[threadIdx.x];
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
