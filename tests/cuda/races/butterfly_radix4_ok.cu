#include "harness.h"
// a radix-4 butterfly over global memory, in place, through local pointers made from the parameters
// (fastWalshTransform's fwtBatch2Kernel): thread pos reads and writes i0 = 4 * (pos - lo) + lo, lo = pos &
// (stride - 1), and the three elements a stride, two and three on; row blockIdx.y is n elements on
__global__ void step(int *out, const int *in, int stride) {
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = blockDim.x * gridDim.x * 4;
  const int *src = in + blockIdx.y * n;
  int *dst = out + blockIdx.y * n;
  int lo = pos & (stride - 1);
  int i0 = ((pos - lo) << 2) + lo;
  int i1 = i0 + stride, i2 = i1 + stride, i3 = i2 + stride;
  int d0 = src[i0], d1 = src[i1], d2 = src[i2], d3 = src[i3];
  dst[i0] = d0 + d2;
  dst[i1] = d1 + d3;
  dst[i2] = d0 - d2;
  dst[i3] = d1 - d3;
}
int main() {
  Bufs b = setup();
  for (int stride = 256; stride > 0; stride >>= 2)
    step<<<dim3(2, 2), 128>>>(b.out, b.out, stride);  // two rows of 1,024 elements
  return finish(b);
}
