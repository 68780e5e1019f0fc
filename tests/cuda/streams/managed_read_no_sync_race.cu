// A kernel writes managed memory; the host reads it right after the launch, with no synchronise between.
#include "kernels.h"
int main() {
  int *m;
  cudaMallocManaged(&m, N * sizeof(int));
  fill<<<N / 64, 64>>>(m, 7);  // RACE
  int first = m[0];  // RACE
  cudaDeviceSynchronize();
  printf("%d\n", first);
  cudaFree(m);
  return 0;
}
