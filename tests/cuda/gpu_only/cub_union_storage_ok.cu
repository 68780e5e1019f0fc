#include "../races/harness.h"
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
// CUB: a union holds the storage of a load and of a scan, with a barrier between the two uses
__global__ void k(const int *in, int *out, int n) {
  using Load = cub::BlockLoad<int, 64, 4, cub::BLOCK_LOAD_TRANSPOSE>;
  using Scan = cub::BlockScan<int, 64>;
  __shared__ union { typename Load::TempStorage load; typename Scan::TempStorage scan; } tmp;
  int items[4];
  Load(tmp.load).Load(in + blockIdx.x * 256, items);
  __syncthreads();
  Scan(tmp.scan).ExclusiveSum(items, items);
  for (int i = 0; i < 4; ++i) out[blockIdx.x * 256 + threadIdx.x * 4 + i] = items[i];
}
int main() {
  Bufs b = setup();
  k<<<4, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
