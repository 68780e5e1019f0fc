#include <cooperative_groups.h>
#include "harness.h"
namespace cg = cooperative_groups;
// as cg_tiles_widening_ok, but each half reads the other half's quad sums, which its own sync
// does not order
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[32], q[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<4> quad = cg::tiled_partition<4>(block);
  cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
  int lane = threadIdx.x % 32;
  s[lane] = in[threadIdx.x];
  quad.sync();
  if (quad.thread_rank() == 0) q[lane / 4] = s[lane] + s[lane + 1] + s[lane + 2] + s[lane + 3];  // RACE
  half.sync();
  int other = (1 - lane / 16) * 4;
  out[threadIdx.x] = q[other] + q[other + 1] + q[other + 2] + q[other + 3];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
