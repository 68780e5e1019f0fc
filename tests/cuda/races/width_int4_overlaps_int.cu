#include "harness.h"
// A 16-byte store by thread 0 overlaps thread 1's 4-byte store.
__global__ void k(const int *in, int *out, int n) {
  if (threadIdx.x == 0) reinterpret_cast<int4 *>(out)[0] = make_int4(1, 2, 3, 4);  // RACE
  if (threadIdx.x == 1) out[2] = 7;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
