#include "harness.h"
template <typename T> __global__ void k(const T *in, T *out, int n) {
  out[threadIdx.x % 8] = in[threadIdx.x];  // RACE
}
int main() {
  Bufs b = setup();
  k<int><<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
