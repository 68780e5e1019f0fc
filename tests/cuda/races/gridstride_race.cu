#include "harness.h"
// a grid-stride loop that steps by one block, not the whole grid: block 1's first element is block 0's
// second round's (the own-index test fails for this launch: every access is checked)
__global__ void k(const int *in, int *out, int n) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  for (int i = tid; i < n; i += blockDim.x) out[i] = in[i] + 1;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<4, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
