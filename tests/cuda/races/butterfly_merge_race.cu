#include "harness.h"
// butterfly_merge_ok's merge launched with a stride that is no power of two: threads 1 and 2 both take
// pos = 2 (i & 2 is 0 for the one, 2 for the other) and order the same pair
__global__ void merge(int *dst, const int *src, unsigned stride) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned pos = 2 * i - (i & (stride - 1));
  int a = src[pos + 0], b = src[pos + stride];  // RACE
  dst[pos + 0] = a < b ? a : b;  // RACE
  dst[pos + stride] = a < b ? b : a;  // RACE
}
int main() {
  Bufs b = setup();
  merge<<<1, 64>>>(b.out, b.out, 3);
  return finish(b);
}
