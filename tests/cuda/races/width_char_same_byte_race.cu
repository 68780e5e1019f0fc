#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  unsigned char *c = reinterpret_cast<unsigned char *>(out);
  c[threadIdx.x / 4] = (unsigned char)threadIdx.x;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
