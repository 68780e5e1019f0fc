// Half of block 1 returns early while the other half waits at __syncthreads.
#include <cstdio>
__global__ void k(int *out) {
  if (blockIdx.x == 1 && threadIdx.x >= 8) return;
  __syncthreads();
  out[blockIdx.x * 32 + threadIdx.x] = 1;
}
int main() {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  k<<<2, 32>>>(d);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
