#include "harness.h"
// Lane 5 writes a shared word, then every lane of its warp reads it in one instruction with no
// __syncwarp between: a race (lane 5's own read is ordered; the other lanes' are not).
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[2];
  if (threadIdx.x == 5) s[1] = in[1];  // RACE
  int v = s[1];  // RACE
  out[threadIdx.x] = v;
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
