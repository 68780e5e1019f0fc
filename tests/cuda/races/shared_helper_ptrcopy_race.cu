#include "harness.h"
// an atomic helper handed a local copy of a __shared__ pointer variable that holds a global pointer: its
// atomics on in[0] race with the plain reads of in[0] by other blocks
__device__ void bump(unsigned *c) { atomicAdd(c, 1u); }  // RACE
__global__ void k(int *out, int *in, int n) {
  __shared__ unsigned *sp;
  if (threadIdx.x == 0) sp = (unsigned *)in;
  __syncthreads();
  unsigned *q = sp;
  __syncthreads();
  bump(q);
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  if (pos < n) out[pos] = in[0];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<8, 64>>>(b.out, b.in, b.n);
  return finish(b);
}
