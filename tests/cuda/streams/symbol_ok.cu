// Copies to and from a symbol on the default stream, around a kernel that doubles it: ordered.
#include "kernels.h"
__device__ int table[N];
__global__ void twice() { table[blockIdx.x * blockDim.x + threadIdx.x] *= 2; }
int main() {
  int h[N];
  for (int i = 0; i < N; ++i) h[i] = i;
  cudaMemcpyToSymbol(table, h, sizeof h);
  twice<<<N / 64, 64>>>();
  cudaMemcpyFromSymbol(h, table, sizeof h);
  printf("%d\n", h[N - 1]);
  return 0;
}
