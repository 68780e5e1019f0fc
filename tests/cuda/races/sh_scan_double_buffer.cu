#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[2][64];
  int t = threadIdx.x, c = 0;
  s[0][t] = in[t];
  __syncthreads();
  for (int d = 1; d < 64; d <<= 1) {
    s[1 - c][t] = s[c][t] + (t >= d ? s[c][t - d] : 0);
    c = 1 - c;
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = s[c][t];
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
