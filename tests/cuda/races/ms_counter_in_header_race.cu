#include "harness.h"
#include "ms_counter_in_header.cuh"
// ms_counter_in_header_ok.cu with the ticket taken by a plain increment of the header's counter instead
// of atomicInc: the blocks' increments race with each other and with the last block's reset, and with
// no release the last block's reads of the partials race with their writes.
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
  if (t == 0) partial[blockIdx.x] = part[0];  // RACE
  __threadfence();
  if (t == 0) {
    unsigned ticket = tickets::count++;  // RACE
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
      tickets::count = 0;  // RACE
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
