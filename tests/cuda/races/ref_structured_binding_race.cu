#include "harness.h"
// a structured binding by reference names the members of a shared element: four threads write
// the same element's first member through it
struct Pair { int a, b; };
__global__ void k(const int *in, int *out, int n) {
  __shared__ Pair s[16];
  auto &[first, second] = s[threadIdx.x % 16];
  first = in[threadIdx.x];  // RACE
  second = 1;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
