#include "harness.h"
// Every lane of a warp writes one shared word in one instruction: a write-write race among the lanes.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[2];
  s[0] = in[threadIdx.x];  // RACE
  __syncthreads();
  out[threadIdx.x] = s[0];
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
