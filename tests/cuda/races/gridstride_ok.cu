#include "harness.h"
// a grid-stride loop: each thread starts at its own index and steps by the whole grid, so no two
// threads meet (own parameter: hirace/proofs/own_index.py, a loop whose start is the thread's)
__global__ void k(const int *in, int *out, int n) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int threads = blockDim.x * gridDim.x;
  for (int i = tid; i < n; i += threads) out[i] = in[i] + 1;
}
int main() {
  Bufs b = setup();
  k<<<4, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
