#include "harness.h"
// __syncwarp orders one warp only: warp 1 reads warp 0's slots.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];  // RACE
  __syncwarp();
  out[blockIdx.x * 64 + t] = s[(t + 32) % 64];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
