#include "harness.h"
// Message passing between blocks whose consumer reads the data right after seeing the flag, with no
// fence (nor barrier) between: its read is not ordered after the producer's write, a race.
__global__ void k(const int *in, int *out, int n) {
  int *flag = &out[0], *data = &out[64];
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = in[1] + in[2];  // RACE
    __threadfence();
    atomicExch(flag, 1);
  } else if (blockIdx.x == 1) {
    while (atomicAdd(flag, 0) == 0) {}
    out[128] = data[0];  // RACE
  }
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
