#include "harness.h"
// paired_inplace_ok's kernel passed one buffer at two places, `src` one element on from `dst`: thread t
// reads the element thread t + 1 writes
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
  k<<<4, TILE / 2>>>(b.out, b.out + 1);
  return finish(b);
}
