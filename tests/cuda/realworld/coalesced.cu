// Warp-aggregated atomics as public samples write them: coalesced_threads() inside a divergent branch.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;
__global__ void agg(int *counter, int *out) {   // warp-aggregated atomic increment, as in the sample
  int i = threadIdx.x;
  if (i % 3 == 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    int prev = 0;
    if (active.thread_rank() == 0) prev = atomicAdd(counter, active.size());
    prev = active.shfl(prev, 0);
    out[i] = prev + active.thread_rank();
  }
}
int main() { int *c, *o; cudaMallocManaged(&c, 4); cudaMallocManaged(&o, 64 * 4); *c = 0; for (int i = 0; i < 64; ++i) o[i] = -1;
  agg<<<1, 64>>>(c, o); cudaDeviceSynchronize(); int s = 0; for (int i = 0; i < 64; ++i) s += o[i]; printf("%d %d\n", *c, s); for (int i = 0; i < 64; i += 3) printf("%d ", o[i]); printf("\n"); }
