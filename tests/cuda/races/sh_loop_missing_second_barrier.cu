#include "harness.h"
// Write, barrier, read, then the next iteration writes again with no barrier.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x, acc = 0;
  for (int it = 0; it < 3; ++it) {
    s[t] = in[t] + it;  // RACE
    __syncthreads();
    acc += s[(t + 1) % 64];  // RACE
  }
  out[blockIdx.x * 64 + t] = acc;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
