#include "harness.h"
// Warp 1 reads what warp 0 then overwrites, with no barrier.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[32];
  int t = threadIdx.x;
  if (t < 32) s[t] = in[t];
  __syncthreads();
  if (t >= 32) out[t] = s[t - 32];  // RACE
  if (t < 32) s[t] = 0;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
