#include "harness.h"
// shared_helper_ok's atomic helper, but in the interval where the helper counts, each thread also reads the
// next thread's bin as a plain load: the atomics race with that read (shared_calls.py: a call's atomics are
// quiet only where every access of their array in the interval is an atomic)
__device__ void add_one(unsigned *bins, unsigned d) { atomicAdd(bins + d, 1u); }  // RACE
__global__ void hist(int *part, const int *in, int n) {
  __shared__ unsigned s[32];
  unsigned *mine = s + (threadIdx.x & 1) * 16;
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  add_one(mine, (unsigned)in[pos] & 15u);
  unsigned seen = s[(threadIdx.x + 1) & 31];  // RACE
  __syncthreads();
  if (threadIdx.x < 16) part[blockIdx.x * 16 + threadIdx.x] = (int)(s[threadIdx.x] + seen);
}
int main() {
  Bufs b = setup();
  hist<<<8, 64>>>(b.out, b.in, b.n);
  return finish(b);
}
