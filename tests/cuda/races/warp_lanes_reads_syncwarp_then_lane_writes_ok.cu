#include "harness.h"
// Every lane of a warp reads one shared word in one instruction, a __syncwarp orders the read
// before lane 5's write: race-free.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[2];
  if (threadIdx.x == 0) s[0] = in[0];
  __syncthreads();
  int v = s[0];
  __syncwarp();
  if (threadIdx.x == 5) s[0] = v + 1;
  out[threadIdx.x] = v;
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
