// A kernel on one stream doubles a symbol that cudaMemcpyFromSymbolAsync on another non-blocking stream
// reads, with nothing between them.
#include "kernels.h"
__device__ int table[N];
__global__ void twice() { table[blockIdx.x * blockDim.x + threadIdx.x] *= 2; }
int main() {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  int *h;
  cudaMallocHost(&h, N * sizeof(int));
  twice<<<N / 64, 64, 0, s1>>>(); // RACE
  cudaMemcpyFromSymbolAsync(h, table, N * sizeof(int), 0, cudaMemcpyDeviceToHost, s2); // RACE
  cudaDeviceSynchronize();
  printf("%d\n", h[0]);
  cudaFreeHost(h);
  return 0;
}
