#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  out[threadIdx.x % 4] += in[threadIdx.x];  // RACE
}
int main() {
  Bufs b = setup();
  int *m;
  cudaMallocManaged(&m, 64 * sizeof(int));
  k<<<1, 64>>>(b.in, m, b.n);
  return finish(b);
}
