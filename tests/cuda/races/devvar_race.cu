#include "harness.h"
__device__ int total;
__global__ void k(const int *in, int *out, int n) {
  total += in[threadIdx.x];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
