#include "harness.h"
// a barrier taken only where a parameter is odd: every thread of the block takes the same way, but
// launched with an even one no barrier separates the neighbour's write from the read
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[65];
  s[threadIdx.x] = in[threadIdx.x];  // RACE
  if (n & 1) {
    __syncthreads();
  }
  out[threadIdx.x] = s[threadIdx.x + 1];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, 4096);
  return finish(b);
}
