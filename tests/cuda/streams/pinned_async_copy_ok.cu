// cudaMemcpyAsync writes pinned host memory; the host synchronises the stream, then reads: ordered.
#include "kernels.h"
int main() {
  int *d, *h;
  cudaMalloc(&d, N * sizeof(int));
  cudaMallocHost(&h, N * sizeof(int));
  for (int i = 0; i < N; ++i) h[i] = -1;
  cudaStream_t s;
  cudaStreamCreate(&s);
  fill<<<N / 64, 64, 0, s>>>(d, 7);
  cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  int sum = 0;
  for (int i = 0; i < N; ++i) sum += h[i];
  printf("%d\n", sum);
  cudaStreamDestroy(s);
  cudaFreeHost(h);
  cudaFree(d);
  return 0;
}
