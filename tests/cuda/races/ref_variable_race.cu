#include "harness.h"
// a reference bound to an element: threads of a warp write one of four words through it
__global__ void k(const int *in, int *out, int n) {
  int &slot = out[threadIdx.x % 4];
  slot = in[threadIdx.x];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
