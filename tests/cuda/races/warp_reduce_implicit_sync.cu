#include "harness.h"
// Pre-Volta warp-synchronous reduction: relies on lockstep, which is a race.
__global__ void k(const int *in, int *out, int n) {
  __shared__ volatile int s[32];
  int t = threadIdx.x;
  if (t < 32) {
    s[t] = in[t];  // RACE
    for (int d = 16; d > 0; d >>= 1)
      if (t < d) s[t] += s[t + d];  // RACE
    if (t == 0) out[blockIdx.x] = s[0];
  }
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
