#include "harness.h"
// Lanes 0 and 1 read a shared word, then lane 2 reads it and writes it, with no __syncwarp: the
// write races with lane 0's and lane 1's reads. Lane 2's own read is not part of the race, so a
// report must not name it as the other thread's access.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[1];
  if (threadIdx.x == 0) s[0] = in[0];
  __syncthreads();
  int v = 0;
  if (threadIdx.x == 0) v = s[0] + 1;  // RACE
  if (threadIdx.x == 1) v = s[0] + 2;  // RACE
  if (threadIdx.x == 2) v = s[0] + 3;
  if (threadIdx.x == 2) s[0] = v;  // RACE
  out[threadIdx.x] = v;
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
