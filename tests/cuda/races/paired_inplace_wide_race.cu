#include "harness.h"
// paired_inplace_ok's kernel passed one pointer as both, in blocks of 96 threads: thread 64's first element
// is thread 0's second, so the reads at the writes' indices are no longer each thread's own
#define TILE 128
__global__ void k(int *dst, const int *src) {
  src += blockIdx.x * TILE + threadIdx.x;
  dst += blockIdx.x * TILE + threadIdx.x;
  int a = src[0], b = src[TILE / 2];  // RACE
  dst[0] = a < b ? a : b;  // RACE
  dst[TILE / 2] = a < b ? b : a;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<4, 96>>>(b.out, b.out);
  return finish(b);
}
