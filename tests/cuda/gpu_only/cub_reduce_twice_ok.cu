#include "../races/harness.h"
#include <cub/block/block_reduce.cuh>
// CUB: one TempStorage used for two reductions, with the __syncthreads CUB documents between them
__global__ void k(const int *in, int *out, int n) {
  using Reduce = cub::BlockReduce<int, 128>;
  __shared__ typename Reduce::TempStorage tmp;
  int v = in[blockIdx.x * 128 + threadIdx.x];
  int total = Reduce(tmp).Sum(v);
  __syncthreads();
  int squares = Reduce(tmp).Sum(v * v);
  if (threadIdx.x == 0) out[blockIdx.x] = total + squares;
}
int main() {
  Bufs b = setup();
  k<<<4, 128>>>(b.in, b.out, b.n);
  return finish(b);
}
