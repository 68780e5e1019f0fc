#include "harness.h"
// a range-based for over a shared array, by reference: every thread writes every element
__global__ void k(const int *in, int *out, int n) {
  __shared__ int tile[8];
  for (int &v : tile) v = threadIdx.x;  // RACE
  __syncthreads();
  if (threadIdx.x == 0) out[0] = tile[3];
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
