#include "harness.h"
// Every lane of a warp reads one shared word in one instruction, then lane 5 writes the word with
// no __syncwarp: a race with the other lanes' read.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[2];
  if (threadIdx.x == 0) s[0] = in[0];
  __syncthreads();
  int v = s[0];  // RACE
  if (threadIdx.x == 5) s[0] = v + 1;  // RACE
  out[threadIdx.x] = v;
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
