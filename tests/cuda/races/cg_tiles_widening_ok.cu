#include <cooperative_groups.h>
#include "harness.h"
namespace cg = cooperative_groups;
// tiles of 4 lanes sum their values, then tiles of 16 lanes sum the quads' sums: the sync of
// the 16-lane tile orders the quads' writes before every lane of the tile reads them
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[32], q[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<4> quad = cg::tiled_partition<4>(block);
  cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
  int lane = threadIdx.x % 32;
  s[lane] = in[threadIdx.x];
  quad.sync();
  if (quad.thread_rank() == 0) q[lane / 4] = s[lane] + s[lane + 1] + s[lane + 2] + s[lane + 3];
  half.sync();
  int base = lane / 16 * 4;
  out[threadIdx.x] = q[base] + q[base + 1] + q[base + 2] + q[base + 3];
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
