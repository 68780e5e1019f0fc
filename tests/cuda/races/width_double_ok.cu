#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  double *d = reinterpret_cast<double *>(out);
  d[blockIdx.x * 64 + threadIdx.x] = in[threadIdx.x] * 0.5;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
