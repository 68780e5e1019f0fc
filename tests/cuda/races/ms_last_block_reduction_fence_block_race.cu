#include "harness.h"
// The single-pass reduction fenced with __threadfence_block() between the partial sum and the ticket: a
// fence of block scope orders nothing for the last block, whose reads of the partials race with their
// writes, and whose reset of the counter races with the other blocks' tickets.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int part[64];
  __shared__ bool last;
  unsigned *count = (unsigned *)&out[0];
  int *partial = &out[64];
  int t = threadIdx.x;
  part[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  for (int s = 32; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = part[0];  // RACE
    __threadfence_block();
    unsigned ticket = atomicInc(count, gridDim.x);  // RACE
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    part[t] = t < gridDim.x ? partial[t] : 0;  // RACE
    __syncthreads();
    for (int s = 32; s > 0; s >>= 1) {
      if (t < s) part[t] += part[t + s];
      __syncthreads();
    }
    if (t == 0) {
      out[128] = part[0];
      *count = 0;  // RACE
    }
  }
}
int main() {
  Bufs b = setup();
  k<<<8, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
