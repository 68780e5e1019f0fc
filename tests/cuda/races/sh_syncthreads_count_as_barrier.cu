#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  int c = __syncthreads_count(s[t] > 5);
  out[blockIdx.x * 64 + t] = s[63 - t] + c;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
