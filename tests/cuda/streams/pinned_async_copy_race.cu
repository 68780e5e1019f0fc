// cudaMemcpyAsync writes pinned host memory; the host reads it before synchronising the stream.
#include "kernels.h"
int main() {
  int *d, *h;
  cudaMalloc(&d, N * sizeof(int));
  cudaMallocHost(&h, N * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  fill<<<N / 64, 64, 0, s>>>(d, 7);
  cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, s);  // RACE
  int first = h[10];  // RACE
  cudaStreamSynchronize(s);
  printf("%d %d\n", first, h[10]);
  cudaStreamDestroy(s);
  cudaFreeHost(h);
  cudaFree(d);
  return 0;
}
