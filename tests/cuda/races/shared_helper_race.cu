#include "harness.h"
// shared_helper_ok's helpers, but one of them is also handed the input: it writes the element the next
// thread reads (shared_calls.py: a call binding any written pointer outside shared memory writes the launch's
// buffers)
__device__ void add_one(unsigned *bins, unsigned d) { atomicAdd(bins + d, 1u); }
__device__ void mark(unsigned *bins, unsigned *seen, unsigned d, int i) {
  add_one(bins, d);
  seen[i] = d;  // RACE
}
__global__ void hist(int *part, int *in, int n) {
  __shared__ unsigned s[16];
  if (threadIdx.x < 16) s[threadIdx.x] = 0;
  __syncthreads();
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  if (pos + 1 < n) mark(s, (unsigned *)in, (unsigned)in[pos + 1] & 15u, pos);  // RACE
  __syncthreads();
  if (threadIdx.x < 16) part[blockIdx.x * 16 + threadIdx.x] = (int)s[threadIdx.x];
}
int main() {
  Bufs b = setup();
  hist<<<8, 64>>>(b.out, b.in, b.n);
  return finish(b);
}
