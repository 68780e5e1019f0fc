#include "harness.h"
// a halo write guarded by `tx + 2*g - (g & 3) < 5`, g = -blockIdx.x (without the butterfly's part, which the
// lanes' forms do not take, the guard would read tx < 5); in block 1 it is tx - 5 < 5, tx < 10, and threads 5..9 write
// s[21..25], which the unguarded s[tx + 21] of threads 0..4 write too
__global__ void k(int *out) {
  __shared__ int s[40];
  int g = -(int)blockIdx.x;
  if ((int)threadIdx.x + 2 * g - (g & 3) < 5) s[threadIdx.x + 16] = 1;  // RACE
  s[threadIdx.x + 21] = 2;  // RACE
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
int main() {
  Bufs b = setup();
  k<<<2, 16>>>(b.out);
  return finish(b);
}
