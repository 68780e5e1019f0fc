#include "harness.h"
// a bitonic merge whose first stride is half a parameter (sortingNetworks' `stride = arrayLength / 2`): a
// butterfly where n is a power of two, as it is here (128): each thread's pair of words is its own
__global__ void k(const int *in, int *out, unsigned n) {
  __shared__ int s[128];
  s[threadIdx.x] = in[threadIdx.x];
  s[threadIdx.x + 64] = in[threadIdx.x + 64];
  for (unsigned stride = n / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    int a = s[pos], b = s[pos + stride];
    s[pos] = min(a, b);
    s[pos + stride] = max(a, b);
  }
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, 128);
  return finish(b);
}
