// Threads of one block wait at two different __syncthreads: barrier divergence.
#include <cstdio>
__global__ void k(int *out) {
  if (threadIdx.x < 16) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = 1;
}
int main() {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  k<<<2, 64>>>(d);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
