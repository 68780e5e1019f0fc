#include "harness.h"
__device__ void put(int *p, int v) { *p = v; }  // RACE
__global__ void k(const int *in, int *out, int n) {
  put(&out[threadIdx.x / 2], in[threadIdx.x]);
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
