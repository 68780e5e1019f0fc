#include "harness.h"
// The single-pass reduction in the shape of the threadFenceReduction idiom: each block sums its tile in
// shared memory through a volatile pointer (a barrier after every step), its first thread publishes the
// partial sum; every thread fences, the first thread takes a ticket from a __device__ counter; the block
// that takes the last one sums the partials the same way, its volatile shared reads and barriers coming
// between the ticket and the reset of the counter for the next launch. Race-free.
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
  if (t == 0) partial[blockIdx.x] = part[0];
  __threadfence();
  if (t == 0) {
    unsigned ticket = atomicInc(&retired, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    block_sum(part, t < gridDim.x ? partial[t] : 0, t);
    if (t == 0) {
      out[128] = part[0];
      retired = 0;
    }
  }
}
int main() {
  Bufs b = setup();
  k<<<8, 64>>>(b.in, b.out, b.n);
  k<<<8, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
