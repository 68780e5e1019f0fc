// A kernel reads managed memory; the host writes it while the kernel may still run.
#include "kernels.h"
int main() {
  int *m, *d;
  cudaMallocManaged(&m, N * sizeof(int));
  cudaMalloc(&d, N * sizeof(int));
  for (int i = 0; i < N; ++i) m[i] = i;  // (before the launch: ordered)
  copy_into<<<N / 64, 64>>>(d, m);  // RACE
  m[3] = -1;  // RACE
  cudaDeviceSynchronize();
  int back = 0;
  cudaMemcpy(&back, d + 3, sizeof(int), cudaMemcpyDeviceToHost);
  printf("%d %d\n", back, m[3]);
  cudaFree(d);
  cudaFree(m);
  return 0;
}
