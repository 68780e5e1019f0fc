#include "harness.h"
// a __host__ __device__ helper that the host calls too (unchecked there) and the kernel calls with
// an index that gives four threads each word
__host__ __device__ inline void put(int *a, int i, int v) {
  a[i % 4] = v;  // RACE
}
__global__ void k(const int *in, int *out, int n) {
  put(out, threadIdx.x, in[threadIdx.x]);
}
int main() {
  int h[4] = {0, 0, 0, 0};
  put(h, 1, 7);
  printf("host: %d\n", h[1]);
  Bufs b = setup();
  k<<<1, 16>>>(b.in, b.out, b.n);
  return finish(b);
}
