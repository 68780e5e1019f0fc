#include "harness.h"
// a structured binding by reference to each thread's own element, and one by value (a copy)
// of an element another thread wrote before the barrier
struct Pair { int a, b; };
__global__ void k(const int *in, int *out, int n) {
  __shared__ Pair s[64];
  auto &[first, second] = s[threadIdx.x];
  first = in[threadIdx.x];
  second = first * 2;
  __syncthreads();
  auto [x, y] = s[63 - threadIdx.x];
  out[threadIdx.x] = x + y;
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
