#include "harness.h"
// A spin lock between blocks without its fences: taking and giving back the lock orders nothing, so the
// critical sections of two blocks race.
__device__ void lock(int *m) {
  while (atomicCAS(m, 0, 1) != 0) {}
}
__device__ void unlock(int *m) {
  atomicExch(m, 0);
}
__global__ void k(const int *in, int *out, int n) {
  if (threadIdx.x != 0) return;
  lock(&out[0]);
  out[64] += in[blockIdx.x];  // RACE
  out[65] = out[64];  // RACE
  unlock(&out[0]);
  __threadfence();   // (a fence elsewhere: the unit follows synchronisation through memory)
}
int main() {
  Bufs b = setup();
  k<<<4, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
