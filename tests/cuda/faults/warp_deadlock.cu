// Lane 0 waits in a warp shuffle that lanes 1..31 never join: they wait at
// __syncthreads, which lane 0 never reaches. Every live thread is blocked.
#include <cstdio>
__global__ void k(int *out) {
  int v = threadIdx.x;
  if (threadIdx.x == 0) v = __shfl_sync(0x3u, v, 1);
  else __syncthreads();
  out[threadIdx.x] = v;
}
int main() {
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  k<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
