#include "harness.h"
__device__ void put(int *p, int v) { *p = v; }
__device__ int get(const int *p, int i) { return p[i]; }
__global__ void k(const int *in, int *out, int n) {
  int i = blockIdx.x * 64 + threadIdx.x;
  put(&out[i], get(in, i) + 1);
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
