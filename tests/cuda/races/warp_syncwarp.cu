#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncwarp();
  out[blockIdx.x * 64 + t] = s[t ^ 1];
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
