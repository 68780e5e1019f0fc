#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  int i = blockIdx.x * 64 + threadIdx.x + 1;
  out[i] = in[i];  // RACE
  __syncthreads();
  out[i] = (out[i - 1] + out[i + 1]) / 2;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
