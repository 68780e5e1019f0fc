#include "harness.h"
#include <cstring>
// each thread copies four ints through shared memory, with a barrier between the phases
__global__ void k(const int *in, int *out, int n) {
  __shared__ int tile[256];
  int t = threadIdx.x;
  memcpy(&tile[t * 4], &in[blockIdx.x * 256 + t * 4], 4 * sizeof(int));
  __syncthreads();
  memcpy(&out[blockIdx.x * 256 + t * 4], &tile[(63 - t) * 4], 4 * sizeof(int));
  __syncthreads();
  memset(&tile[t * 4], 0, 4 * sizeof(int));
}
int main() {
  Bufs b = setup();
  k<<<4, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
