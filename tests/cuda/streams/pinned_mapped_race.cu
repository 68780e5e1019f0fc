// A kernel writes mapped pinned memory through its device pointer; the host reads it without a synchronise.
#include "kernels.h"
int main() {
  int *h, *dev;
  cudaHostAlloc(&h, N * sizeof(int), cudaHostAllocMapped);
  cudaHostGetDevicePointer(&dev, h, 0);
  fill<<<N / 64, 64>>>(dev, 3);  // RACE
  int last = h[N - 1];  // RACE
  cudaDeviceSynchronize();
  printf("%d %d\n", last, h[N - 1]);
  cudaFreeHost(h);
  return 0;
}
