// A kernel writes a __managed__ variable; the host reads it right after the launch.
#include "kernels.h"
__managed__ int result;
__global__ void answer() {
  if (threadIdx.x == 0) result = 42;
}
int main() {
  answer<<<1, 32>>>();  // RACE
  int seen = result;  // RACE
  cudaDeviceSynchronize();
  printf("%d %d\n", seen, result);
  return 0;
}
