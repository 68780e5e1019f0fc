#include "harness.h"
// a helper indexing its shared parameter by a pointer difference: b[g - b] is *g, in global memory
__device__ void put(unsigned *b, unsigned *g, unsigned d) { b[g - b] = d; }  // RACE
__global__ void k(int *out, int *in, int n) {
  __shared__ unsigned s[16];
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  if (pos + 1 < n) {
    int v = in[pos + 1];  // RACE
    put(s, (unsigned *)in + pos, (unsigned)v);
  }
  if (pos < n) out[pos] = pos;
}
int main() {
  Bufs b = setup();
  k<<<8, 64>>>(b.out, b.in, b.n);
  return finish(b);
}
