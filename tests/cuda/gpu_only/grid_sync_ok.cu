#include "../races/harness.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// a cooperative kernel: blocks write their partial sums, the grid syncs, block 0 adds them up,
// the grid syncs again and every block reads the total
__global__ void k(const int *in, int *out, int n) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) out[1 + blockIdx.x] = in[blockIdx.x];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int s = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) s += out[1 + b];
    out[0] = s;
  }
  grid.sync();
  out[64 + blockIdx.x * blockDim.x + threadIdx.x] = out[0];
}
int main() {
  Bufs b = setup();
  void *args[] = {&b.in, &b.out, &b.n};
  cudaLaunchCooperativeKernel((void *)k, dim3(4), dim3(64), args, 0, 0);
  return finish(b);
}
