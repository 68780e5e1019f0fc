#include "harness.h"
struct Acc { int sum; int count; };
__global__ void k(const int *in, int *out, int n) {
  Acc *a = reinterpret_cast<Acc *>(out);
  a->count = threadIdx.x;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
