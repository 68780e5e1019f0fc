// Blocking streams and the legacy default stream order each other: a launch on stream 0 waits for the
// blocking streams' earlier work, and their later work waits for it.
#include "kernels.h"
int main() {
  int *a, *b;
  cudaMalloc(&a, N * sizeof(int));
  cudaMalloc(&b, N * sizeof(int));
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  fill<<<N / 64, 64, 0, s1>>>(a, 1);
  copy_into<<<N / 64, 64>>>(b, a);
  add_one<<<N / 64, 64, 0, s2>>>(b);
  cudaMemsetAsync(a, 0, N * sizeof(int), 0);
  scale<<<N / 64, 64, 0, s1>>>(a, 2);
  cudaDeviceSynchronize();
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
