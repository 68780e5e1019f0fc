#include "harness.h"
// Every lane of block 0 reads one global word in one instruction while a thread of block 1 writes it:
// a race across blocks, whichever comes first.
__global__ void k(int *in, int *out, int n) {
  if (blockIdx.x == 1 && threadIdx.x == 3) in[9] = 1;  // RACE
  if (blockIdx.x == 0) out[threadIdx.x] = in[9];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
