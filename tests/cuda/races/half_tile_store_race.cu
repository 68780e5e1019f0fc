#include "harness.h"
// half_tile_store_ok's kernel launched with blocks of 96 threads: thread 64's first word is thread 0's
// word half a tile on, both stored in one barrier interval
#define TILE 128
__global__ void k(const int *in, int *out, int n) {
  in += blockIdx.x * TILE + threadIdx.x;
  out += blockIdx.x * TILE + threadIdx.x;
  out[0] = in[0] + 1;  // RACE
  out[TILE / 2] = in[TILE / 2] + 2;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<4, 96>>>(b.in, b.out, b.n);
  return finish(b);
}
