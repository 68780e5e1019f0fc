#include "harness.h"
// a local copy of the thread index, then changed through a reference to it: every thread writes
// tile[0], which no proof about "each thread's own word" may skip
__global__ void k(const int *in, int *out, int n) {
  __shared__ int tile[64];
  int i = threadIdx.x;
  int &r = i;
  r = 0;
  tile[i] = in[threadIdx.x];  // RACE
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
