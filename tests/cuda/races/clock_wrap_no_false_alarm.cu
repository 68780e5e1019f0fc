// Thread 0 writes, the block passes 1030 barriers, thread 1 reads: ordered, so
// no race, even though the block clock (10 bits) wrapped in between.
#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  if (threadIdx.x == 0) out[0] = in[0];
  for (int i = 0; i < 1030; ++i) __syncthreads();
  if (threadIdx.x == 1) out[1] = out[0];
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
