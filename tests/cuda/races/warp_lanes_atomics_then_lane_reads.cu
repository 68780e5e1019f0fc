#include "harness.h"
// Every lane of a warp adds to one shared counter, then lane 0 reads it with no barrier: the other
// lanes' adds race with the plain read.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  atomicAdd(&count, 1);  // RACE
  if (threadIdx.x == 0) out[0] = count;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
