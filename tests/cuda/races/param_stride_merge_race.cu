#include "harness.h"
// param_stride_merge_ok's merge with n = 96, no power of two: stride 48's mask (47) keeps threads 0 and 16
// apart nowhere, so their pairs meet (thread 16's pos is 16 + 0, thread 0's pos + 48 ... and so on)
__global__ void k(const int *in, int *out, unsigned n) {
  __shared__ int s[128];
  s[threadIdx.x] = in[threadIdx.x];
  s[threadIdx.x + 64] = in[threadIdx.x + 64];
  for (unsigned stride = n / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    int a = s[pos], b = s[pos + stride];  // RACE
    s[pos] = min(a, b);  // RACE
    s[pos + stride] = max(a, b);  // RACE
  }
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, 96);
  return finish(b);
}
