#include "harness.h"
// butterfly_radix4_ok's step writing a fifth element, four strides on: that is the element i0 of the
// thread `stride` further (4 * (pos + stride - lo) + lo = i0 + 4 * stride)
__global__ void step(int *out, const int *in, int stride) {
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  int lo = pos & (stride - 1);
  int i0 = ((pos - lo) << 2) + lo;
  int i1 = i0 + stride, i2 = i1 + stride, i3 = i2 + stride, i4 = i3 + stride;
  int d0 = in[i0], d1 = in[i1], d2 = in[i2], d3 = in[i3];  // RACE
  out[i0] = d0 + d2;  // RACE
  out[i1] = d1 + d3;
  out[i2] = d0 - d2;
  out[i3] = d1 - d3;
  out[i4] = d0;  // RACE
}
int main() {
  Bufs b = setup();
  step<<<2, 128>>>(b.out, b.out, 16);
  return finish(b);
}
