#include "harness.h"
#include <cstring>
// device memset of a global row that another block reads without ordering
__global__ void k(const int *in, int *out, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) memset(out, 0, 16 * sizeof(int));  // RACE
  if (blockIdx.x == 1) out[100 + threadIdx.x] = out[threadIdx.x % 16];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
