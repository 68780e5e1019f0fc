#include "harness.h"
__device__ void atomic_max_cas(int *addr, int v) {
  int old = atomicCAS(addr, 0, v), assumed;
  do {
    assumed = old;
    if (assumed >= v) break;
    old = atomicCAS(addr, assumed, v);
  } while (old != assumed);
}
__global__ void k(const int *in, int *out, int n) {
  atomic_max_cas(&out[0], in[blockIdx.x * 64 + threadIdx.x]);
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
