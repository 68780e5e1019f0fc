// A kernel writes a __managed__ variable; the host reads it after cudaDeviceSynchronize: ordered.
#include "kernels.h"
__managed__ int result;
__global__ void answer() {
  if (threadIdx.x == 0) result = 42;
}
int main() {
  result = 1;  // (before the launch: ordered)
  answer<<<1, 32>>>();
  cudaDeviceSynchronize();
  printf("%d\n", result);
  return 0;
}
