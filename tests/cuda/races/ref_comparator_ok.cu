#include "harness.h"
// a bitonic sort whose comparator takes its keys by reference: each call's two words are its thread's
// alone in the barrier interval (pos = 2 * tid - (tid & (stride - 1)), and pos + stride), so the
// comparator's accesses are quiet in these calls; the merge's call on locals touches no shared word
__device__ inline void comparator(int &a, int &b, int dir) {
  if ((a > b) == dir) {
    int t = a;
    a = b;
    b = t;
  }
}
__global__ void sort(const int *in, int *out, int n) {
  __shared__ int s[128];
  s[threadIdx.x] = in[threadIdx.x];
  s[threadIdx.x + 64] = in[threadIdx.x + 64];
  for (unsigned size = 2; size <= 128; size <<= 1) {
    int dir = (threadIdx.x & (size / 2)) != 0;
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      comparator(s[pos], s[pos + stride], dir);
    }
  }
  __syncthreads();
  int lo = s[threadIdx.x], hi = s[threadIdx.x + 64];
  comparator(lo, hi, 1);
  out[threadIdx.x] = lo;
  out[threadIdx.x + 64] = hi;
}
int main() {
  Bufs b = setup();
  sort<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
