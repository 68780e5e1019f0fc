#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  int acc = 0;
  for (int j = 0; j < 64; ++j) acc += s[j];
  out[blockIdx.x * 64 + t] = acc;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
