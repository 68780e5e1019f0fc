#include "harness.h"
#include "ms_counter_in_header.cuh"
// The single-pass reduction of ms_last_block_reduction_ok.cu with its ticket counter a __device__
// variable defined in a header (ms_counter_in_header.cuh), set by cudaMemcpyToSymbol before each launch:
// each block's first thread publishes its partial sum, every thread fences, the first thread takes a
// ticket; the block that takes the last one sums the partials and resets the counter. Race-free.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int part[64];
  __shared__ bool last;
  int *partial = &out[64];
  int t = threadIdx.x;
  part[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  for (int s = 32; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = part[0];
  __threadfence();
  if (t == 0) {
    unsigned ticket = atomicInc(&tickets::count, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    part[t] = t < gridDim.x ? partial[t] : 0;
    __syncthreads();
    for (int s = 32; s > 0; s >>= 1) {
      if (t < s) part[t] += part[t + s];
      __syncthreads();
    }
    if (t == 0) {
      out[128] = part[0];
      tickets::count = 0;
    }
  }
}
int main() {
  Bufs b = setup();
  for (int r = 0; r < 2; ++r) {
    unsigned zero = 0;
    cudaMemcpyToSymbol(tickets::count, &zero, sizeof zero);
    k<<<8, 64>>>(b.in, b.out, b.n);
  }
  return finish(b);
}
