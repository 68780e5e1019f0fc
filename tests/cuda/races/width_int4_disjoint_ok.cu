#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  int4 *v = reinterpret_cast<int4 *>(out);
  v[blockIdx.x * 64 + threadIdx.x] = make_int4(threadIdx.x, 0, 0, in[threadIdx.x]);
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
