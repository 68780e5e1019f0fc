#include "harness.h"
// Blocks that run one after another in one of the cpu backend's block slots: each block's first
// shared accesses are at the top of its arrays and go down (thread 0 writes the last element), so
// the words a block meets below the first it touched were the previous block's; ordered by the
// barrier, nothing races (the static array in the window's lower half, the dynamic one in its upper).
__global__ void k(const int *in, int *out, int n) {
  __shared__ int a[64];
  extern __shared__ int s[];
  int t = threadIdx.x;
  a[63 - t] = in[t];
  s[63 - t] = in[t] + 1;
  __syncthreads();
  out[blockIdx.x * 64 + t] = a[t] + s[(t + 1) % 64];
}
int main() {
  Bufs b = setup();
  k<<<4, 64, 64 * sizeof(int)>>>(b.in, b.out, b.n);
  k<<<3, 64, 64 * sizeof(int)>>>(b.in, b.out, b.n);
  return finish(b);
}
