#include "harness.h"
// reads through the load intrinsics race with another thread's plain write
__global__ void k(const int *in, int *out, int n) {
  int t = threadIdx.x;
  if (t == 0) out[1] = in[0];  // RACE
  int v = __ldg(&out[1]) + __ldcg(&out[1]);  // RACE
  out[64 + t] = v;
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
