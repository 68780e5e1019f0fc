#include <cooperative_groups.h>
#include "harness.h"
namespace cg = cooperative_groups;
// a sum over any group through shared memory, as NVIDIA's cooperative-groups sample writes it:
// called with the whole block, then with tiles of 16 lanes (a thread_group made by tiled_partition)
__device__ int sum(cg::thread_group g, int *x, int v) {
  int lane = g.thread_rank();
  for (int i = g.size() / 2; i > 0; i /= 2) {
    x[lane] = v;
    g.sync();
    if (lane < i) v += x[lane + i];
    g.sync();
  }
  return v;
}
__global__ void k(const int *in, int *out, int n) {
  __shared__ int work[64];
  cg::thread_block block = cg::this_thread_block();
  int v = in[threadIdx.x];
  int all = sum(block, work, v);
  if (block.thread_rank() == 0) out[0] = all;
  block.sync();
  cg::thread_group tile = cg::tiled_partition(block, 16);
  int at = threadIdx.x - tile.thread_rank();
  int part = sum(tile, work + at, v);
  if (tile.thread_rank() == 0) out[1 + threadIdx.x / 16] = part;
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
