// A kernel writes managed memory; the host reads it after cudaDeviceSynchronize: ordered.
#include "kernels.h"
int main() {
  int *m;
  cudaMallocManaged(&m, N * sizeof(int));
  fill<<<N / 64, 64>>>(m, 7);
  cudaDeviceSynchronize();
  int sum = 0;
  for (int i = 0; i < N; ++i) sum += m[i];
  printf("%d\n", sum);
  cudaFree(m);
  return 0;
}
