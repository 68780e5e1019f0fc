// A tile barrier orders only its own warp: reading a value another warp wrote is a race.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void shift(int *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ int s[64];
  s[block.thread_rank()] = block.thread_rank();
  warp.sync();
  out[block.thread_rank()] = s[(block.thread_rank() + 32) % 64];   // RACE: written by the other warp
}

int main() {
  int *out;
  cudaMallocManaged(&out, 64 * sizeof(int));
  shift<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  printf("%d\n", out[0] + out[63]);
  return 0;
}
