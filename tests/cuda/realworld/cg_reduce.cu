// Cooperative groups: a block, 32- and 8-thread tiles, shuffles, votes, reduce and scans.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void sums(int *out, const int *in) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ int s[128];
  s[block.thread_rank()] = in[blockIdx.x * blockDim.x + block.thread_rank()];
  block.sync();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int v = s[(block.thread_rank() + 1) % 128];
  for (int o = warp.size() / 2; o > 0; o /= 2) v += warp.shfl_down(v, o);
  auto t8 = cg::tiled_partition<8>(block);
  int r8 = cg::reduce(t8, s[block.thread_rank()], cg::plus<int>());
  int scan = cg::exclusive_scan(t8, 1);
  unsigned odd = warp.ballot(s[block.thread_rank()] % 2);
  cg::sync(block);
  if (warp.thread_rank() == 0) out[blockIdx.x * 4 + warp.meta_group_rank()] = v;
  if (t8.thread_rank() == 7) atomicAdd(&out[64], r8 + scan + (warp.any(1) ? 0 : 1000) + (odd != 0u));
}

int main() {
  int *in, *out;
  cudaMallocManaged(&in, 256 * sizeof(int));
  cudaMallocManaged(&out, 65 * sizeof(int));
  for (int i = 0; i < 256; ++i) in[i] = i;
  for (int i = 0; i < 65; ++i) out[i] = 0;
  sums<<<2, 128>>>(out, in);
  cudaDeviceSynchronize();
  for (int i = 0; i < 8; ++i) printf("%d ", out[i]);
  printf("| %d\n", out[64]);
  return 0;
}
