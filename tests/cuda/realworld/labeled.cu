// Warp-aggregated increments per bucket, as cuda-samples' warpAggregatedAtomicsCG writes them: the coalesced
// threads split by cg::labeled_partition, under `__CUDA_ARCH__ >= 700` (the cpu backend builds device code as
// the device pass reads it).
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;
__global__ void count(int *counter, int *leaders) {
  int bucket = threadIdx.x % 5;
#if __CUDA_ARCH__ >= 700
  cg::coalesced_group active = cg::coalesced_threads();
  auto same = cg::labeled_partition(active, bucket);
  if (same.thread_rank() == 0) {
    atomicAdd(&counter[bucket], (int)same.size());
    atomicAdd(leaders, 1);
  }
#else
  atomicAdd(&counter[bucket], 1);
#endif
}
int main() {
  int *d, h[6];
  cudaMalloc(&d, 6 * sizeof(int));
  cudaMemset(d, 0, 6 * sizeof(int));
  count<<<2, 64>>>(d, d + 5);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d %d %d %d %d %d\n", h[0], h[1], h[2], h[3], h[4], h[5]);
  cudaFree(d);
  return 0;
}
