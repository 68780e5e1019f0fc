#include "harness.h"
// Every lane of a warp reads one shared double (two 4-byte shadow words) at once, then lane 3
// writes it with no __syncwarp: a race on both words.
__global__ void k(const int *in, int *out, int n) {
  __shared__ double d;
  if (threadIdx.x == 0) d = in[0];
  __syncthreads();
  double v = d;  // RACE
  if (threadIdx.x == 3) d = v * 2;  // RACE
  out[threadIdx.x] = int(v);
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
