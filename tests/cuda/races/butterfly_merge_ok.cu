#include "harness.h"
// a bitonic merge step over global memory, in place (sortingNetworks' bitonicMergeGlobal): thread i orders
// the pair pos = 2 * i - (i & (stride - 1)) and pos + stride; for a power-of-two stride no two threads'
// pairs share an element (own_index.py Fold)
__global__ void merge(int *dst, const int *src, unsigned stride) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned pos = 2 * i - (i & (stride - 1));
  int a = src[pos + 0], b = src[pos + stride];
  dst[pos + 0] = a < b ? a : b;
  dst[pos + stride] = a < b ? b : a;
}
int main() {
  Bufs b = setup();
  for (unsigned stride = 1024; stride > 0; stride >>= 1)
    merge<<<8, 256>>>(b.out, b.out, stride);  // 2048 threads, 4096 elements
  return finish(b);
}
