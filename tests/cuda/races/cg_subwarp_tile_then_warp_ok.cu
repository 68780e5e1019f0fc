#include <cooperative_groups.h>
#include "harness.h"
namespace cg = cooperative_groups;
// tiles of 8 lanes work apart, then the whole warp syncs and every lane reads another tile's word
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[32], t[32];
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(warp);
  int lane = warp.thread_rank();
  s[lane] = in[lane];
  tile.sync();
  t[lane] = s[lane] + s[tile.meta_group_rank() * 8 + (tile.thread_rank() + 1) % 8];
  warp.sync();
  out[lane] = t[(lane + 8) % 32] + s[(lane + 16) % 32];
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
