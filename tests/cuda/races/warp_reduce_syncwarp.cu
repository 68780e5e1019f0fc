#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[32];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncwarp();
  for (int d = 16; d > 0; d >>= 1) {
    int v = t < d ? s[t + d] : 0;
    __syncwarp();
    if (t < d) s[t] += v;
    __syncwarp();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
