#include "harness.h"
template <typename T, int STRIDE> __global__ void k(const T *in, T *out, int n) {
  out[blockIdx.x * 64 * STRIDE + threadIdx.x * STRIDE] = in[threadIdx.x] + T(1);
}
int main() {
  Bufs b = setup();
  k<int, 2><<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
