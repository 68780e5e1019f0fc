#include "harness.h"
// a shared tile written at threadIdx.x and at threadIdx.x + 2*g - (g & 3), g = blockIdx.x + 2: the second is
// tx + 2 in block 0, so threads 0 and 2 write s[2] (the lanes' forms, tree_forms.py, take no butterfly's part:
// with its -(g & 3) left out the two would lie apart)
__global__ void k(int *out) {
  __shared__ int s[16];
  int g = blockIdx.x + 2;
  s[threadIdx.x] = 1;  // RACE
  s[threadIdx.x + 2 * g - (g & 3)] = 2;  // RACE
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
int main() {
  Bufs b = setup();
  k<<<1, 4>>>(b.out);
  return finish(b);
}
