#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  int v = s[t ^ 2];
  __syncwarp();
  s[t ^ 1] = v;
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[t];
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
