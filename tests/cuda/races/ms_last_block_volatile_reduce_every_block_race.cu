#include "harness.h"
// ms_last_block_volatile_reduce_ok.cu where every block, not only the one that took the last ticket, sums
// the partials: a block that took an earlier ticket has acquired no release of the blocks after it, so
// its reads of their partials race with their writes (and every block writes the total).
__device__ unsigned retired;

__device__ void block_sum(volatile int *s, int v, int t) {
  s[t] = v;
  __syncthreads();
  for (int i = 32; i > 0; i >>= 1) {
    if (t < i) s[t] = v = v + s[t + i];
    __syncthreads();
  }
}

__global__ void k(const int *in, int *out, int n) {
  __shared__ int part[64];
  __shared__ bool last;
  int *partial = &out[64];
  int t = threadIdx.x;
  block_sum(part, in[blockIdx.x * 64 + t], t);
  if (t == 0) partial[blockIdx.x] = part[0];  // RACE
  __threadfence();
  if (t == 0) {
    unsigned ticket = atomicInc(&retired, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  block_sum(part, t < gridDim.x ? partial[t] : 0, t);  // RACE
  if (t == 0) {
    out[128] = part[0];  // RACE
    if (last) retired = 0;
  }
}
int main() {
  Bufs b = setup();
  k<<<8, 64>>>(b.in, b.out, b.n);
  k<<<8, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
