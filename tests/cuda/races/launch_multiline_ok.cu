#include "harness.h"
// a launch whose configuration and arguments span lines (a comment among them), and a `register`
// variable (C++17 takes it with a warning): race-free
__global__ void k(const int *in, int *out, int n) {
  register int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}
int main() {
  Bufs b = setup();
  k<<<dim3(b.n / 128,
           1), dim3(128,  // threads of a block
                    1)>>>(b.in,
                          b.out, b.n);
  return finish(b);
}
