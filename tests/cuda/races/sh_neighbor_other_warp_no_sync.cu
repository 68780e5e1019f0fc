#include "harness.h"
// Each thread reads the slot its neighbour 32 places on writes (another warp).
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t] * 2;  // RACE
  out[blockIdx.x * 64 + t] = s[(t + 32) % 64];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
