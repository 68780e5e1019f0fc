#include "harness.h"
// a device function wholly under a condition on __CUDA_ARCH__, called from a kernel body that only
// the device pass compiles: four threads write each word
#ifdef __CUDA_ARCH__
__device__ void put(int *p, int v) {
  *p = v;  // RACE
}
#endif
__global__ void k(const int *in, int *out, int n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  put(&out[threadIdx.x / 4], in[threadIdx.x]);
#endif
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
