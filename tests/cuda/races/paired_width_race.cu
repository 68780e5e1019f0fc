#include "harness.h"
// a read-only parameter read at the index an own parameter writes, passed the same pointer, but of bytes where
// the own one writes ints: thread t reads byte t, which belongs to thread t / 4's element
__global__ void k(int *dst, const char *src) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  dst[i] = src[i] + 1;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.out, (const char *)b.out);
  return finish(b);
}
