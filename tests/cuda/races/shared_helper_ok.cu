#include "harness.h"
// A histogram counted through helpers: atomics two device functions deep, through a pointer into the
// block's shared array (each warp its own bins), the input read once per thread, each block's bins written
// out by its own threads (shared_calls.py: the calls write no buffer of the launch's)
__device__ void add_one(unsigned *bins, unsigned d) { atomicAdd(bins + d, 1u); }
__device__ void add_word(unsigned *bins, unsigned w) {
  add_one(bins, w & 15u);
  add_one(bins, (w >> 4) & 15u);
}
__global__ void hist(int *part, const int *in, int n) {
  __shared__ unsigned s[2 * 16];
  unsigned *mine = s + (threadIdx.x >> 5) * 16;
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  for (int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < n; pos += blockDim.x * gridDim.x)
    add_word(mine, (unsigned)in[pos]);
  __syncthreads();
  if (threadIdx.x < 16) part[blockIdx.x * 16 + threadIdx.x] = (int)(s[threadIdx.x] + s[16 + threadIdx.x]);
}
int main() {
  Bufs b = setup();
  hist<<<8, 64>>>(b.out, b.in, b.n);
  return finish(b);
}
