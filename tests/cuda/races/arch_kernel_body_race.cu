#include "harness.h"
// a kernel whose body only nvcc's device pass compiles (sm_70 and newer), and a fallback the host
// pass reads (never run: no GPU runs the host pass's kernels)
__global__ void k(const int *in, int *out, int n) {
#if __CUDA_ARCH__ >= 700
  out[threadIdx.x / 2] = in[threadIdx.x];  // RACE
#else
  out[threadIdx.x] = -1;
#endif
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
