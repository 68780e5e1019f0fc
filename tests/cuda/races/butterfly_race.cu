#include "harness.h"
// a butterfly whose partner lies two strides on where the pairs are one stride wide: thread 0's partner
// s[0 + 2 * 4] is thread 4's own s[8] in the same barrier interval
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[160];
  s[threadIdx.x] = in[threadIdx.x];
  s[threadIdx.x + 64] = in[threadIdx.x + 64];
  for (int stride = 4; stride > 0; stride >>= 1) {
    int lo = threadIdx.x & (stride - 1);
    int i0 = ((threadIdx.x - lo) << 1) + lo;
    __syncthreads();
    int a = s[i0];  // RACE
    s[i0] = a + 1;  // RACE
    s[i0 + 2 * stride] += a;  // RACE
  }
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
