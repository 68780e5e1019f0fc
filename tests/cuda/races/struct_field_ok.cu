#include "harness.h"
struct Pair { int a; int b; };
__global__ void k(const int *in, int *out, int n) {
  Pair *p = reinterpret_cast<Pair *>(out) + blockIdx.x * 64 + threadIdx.x;
  p->a = in[threadIdx.x];
  p->b = p->a * 2;
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
