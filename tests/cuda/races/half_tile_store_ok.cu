#include "harness.h"
// each block stores a tile of 128 words, each thread its own word and the one half a tile on, through
// an output moved to the thread's first (sortingNetworks' `d_DstKey += blockIdx.x * SIZE + threadIdx.x`):
// 64 threads a block, so no two threads' words meet
#define TILE 128
__global__ void k(const int *in, int *out, int n) {
  in += blockIdx.x * TILE + threadIdx.x;
  out += blockIdx.x * TILE + threadIdx.x;
  out[0] = in[0] + 1;
  out[TILE / 2] = in[TILE / 2] + 2;
}
int main() {
  Bufs b = setup();
  k<<<4, TILE / 2>>>(b.in, b.out, b.n);
  return finish(b);
}
