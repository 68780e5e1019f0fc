#include <cooperative_groups.h>
#include "harness.h"
namespace cg = cooperative_groups;
// a tile of 16 lanes syncs only its own lanes: lane 16 reads what lane 15 of the other tile wrote
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[32];
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  int lane = threadIdx.x;
  s[lane] = in[lane];  // RACE
  tile.sync();
  out[lane] = s[(lane + 31) % 32];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
