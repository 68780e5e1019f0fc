#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x;
  s[t] = in[t];  // RACE
  out[blockIdx.x * 64 + t] = s[63 - t];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64, 64 * sizeof(int)>>>(b.in, b.out, b.n);
  return finish(b);
}
