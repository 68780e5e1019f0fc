#include "harness.h"
// a Walsh transform's butterflies in the launch's dynamic shared memory: radix-4 stages whose stride is
// a power of two, a radix-2 stage under a barrier taken where log2n is odd, block-stride loads and stores
// through a pointer moved from a parameter; each stage's words are one thread's alone
__global__ void fwt(const int *in, int *out, int log2n) {
  const int n = 1 << log2n;
  extern __shared__ int d[];
  int *dst = out + blockIdx.x * n;
  for (int pos = threadIdx.x; pos < n; pos += blockDim.x) d[pos] = in[blockIdx.x * n + pos];
  const int pos = threadIdx.x;
  for (int stride = n >> 2; stride > 0; stride >>= 2) {
    int lo = pos & (stride - 1);
    int i0 = ((pos - lo) << 2) + lo;
    int i1 = i0 + stride, i2 = i1 + stride, i3 = i2 + stride;
    __syncthreads();
    int a = d[i0], b = d[i1], c = d[i2], e = d[i3];
    d[i0] = a + b + c + e;
    d[i1] = a - b + c - e;
    d[i2] = a + b - c - e;
    d[i3] = a - b - c + e;
  }
  if (log2n & 1) {
    __syncthreads();
    for (int p = threadIdx.x; p < n / 2; p += blockDim.x) {
      int j0 = p << 1;
      int a = d[j0], b = d[j0 + 1];
      d[j0] = a + b;
      d[j0 + 1] = a - b;
    }
  }
  __syncthreads();
  for (int p = threadIdx.x; p < n; p += blockDim.x) dst[p] = d[p];
}
int main() {
  Bufs b = setup();
  fwt<<<2, 64, 256 * sizeof(int)>>>(b.in, b.out, 8);   // four radix-4 stages
  fwt<<<2, 32, 128 * sizeof(int)>>>(b.in, b.out, 7);   // three, then the radix-2 stage
  return finish(b);
}
