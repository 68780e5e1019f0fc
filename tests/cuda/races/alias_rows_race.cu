#include "harness.h"
// alias_rows_ok's rows, but each block's row starts half a row after the last one's: blocks write each
// other's elements
__global__ void rows(int *out, const int *in, int log2n) {
  const int n = 1 << log2n;
  const int base = blockIdx.x << (log2n - 1);
  const int *src = in + base;
  int *dst = out + base;
  for (int pos = threadIdx.x; pos < n; pos += blockDim.x) dst[pos] = src[pos] * 2;  // RACE
}
int main() {
  Bufs b = setup();
  rows<<<4, 64>>>(b.out, b.out, 8);
  return finish(b);
}
