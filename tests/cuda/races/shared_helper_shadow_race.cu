#include "harness.h"
// a local pointer of the same name as the kernel's shared array (another scope) holds a global pointer
__device__ void put(unsigned *b, unsigned d, int i) { b[i] = d; }  // RACE
__global__ void k(int *out, int *in, int n) {
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  {
    __shared__ unsigned s[16];
    if (threadIdx.x < 16) s[threadIdx.x] = 0;
  }
  if (pos + 1 < n) {
    unsigned *s = (unsigned *)in;
    int v = in[pos + 1];  // RACE
    put(s, (unsigned)v, pos);
  }
  if (pos < n) out[pos] = pos;
}
int main() {
  Bufs b = setup();
  k<<<8, 64>>>(b.out, b.in, b.n);
  return finish(b);
}
