#include "harness.h"
// an in-place pass (sortingNetworks' bitonicMergeShared<<<...>>>(d_DstKey, ..., d_DstKey, ...)): the kernel
// reads `src` only at the elements its thread writes through `dst`, both moved alike, and the launch
// passes one pointer as both: each thread reads and writes only its own two elements
#define TILE 128
__global__ void k(int *dst, const int *src) {
  src += blockIdx.x * TILE + threadIdx.x;
  dst += blockIdx.x * TILE + threadIdx.x;
  int a = src[0], b = src[TILE / 2];
  dst[0] = a < b ? a : b;
  dst[TILE / 2] = a < b ? b : a;
}
int main() {
  Bufs b = setup();
  k<<<4, TILE / 2>>>(b.out, b.out);
  return finish(b);
}
