#include "../races/harness.h"
#include <cub/block/block_reduce.cuh>
// CUB: one TempStorage reused by a second reduction without the __syncthreads CUB documents
__global__ void k(const int *in, int *out, int n) {
  using Reduce = cub::BlockReduce<int, 128>;
  __shared__ typename Reduce::TempStorage tmp;
  Reduce reduce(tmp);
  int v = in[blockIdx.x * 128 + threadIdx.x];
  int total = reduce.Sum(v);  // RACE
  int squares = reduce.Sum(v * v);  // RACE
  if (threadIdx.x == 0) out[blockIdx.x] = total + squares;
}
int main() {
  Bufs b = setup();
  k<<<4, 128>>>(b.in, b.out, b.n);
  return finish(b);
}
