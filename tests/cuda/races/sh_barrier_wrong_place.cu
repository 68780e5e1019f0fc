#include "harness.h"
// The barrier comes before the writes it should separate from the reads.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  __syncthreads();
  s[t] = in[blockIdx.x * 64 + t];  // RACE
  out[blockIdx.x * 64 + t] = s[(t + 1) % 64];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
