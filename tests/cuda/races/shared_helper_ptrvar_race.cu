#include "harness.h"
// a __shared__ pointer variable holding a global pointer, passed to a helper that writes through it
__device__ void put(unsigned *b, unsigned d, int i) { b[i] = d; }  // RACE
__global__ void k(int *out, int *in, int n) {
  __shared__ unsigned *sp;
  if (threadIdx.x == 0) sp = (unsigned *)in;
  __syncthreads();
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  if (pos + 1 < n) {
    int v = in[pos + 1];  // RACE
    put(sp, (unsigned)v, pos);
  }
  if (pos < n) out[pos] = pos;
}
int main() {
  Bufs b = setup();
  k<<<8, 64>>>(b.out, b.in, b.n);
  return finish(b);
}
