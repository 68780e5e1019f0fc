// Two kernels on two non-blocking streams write the two halves of one buffer, each through a pointer into
// it (its own elements, quiet: their words noted in the launch's footprint from the buffer's start,
// hirace/stream_footprint.h ParamBits): they touch no byte in common.
#include "kernels.h"
int main() {
  int *d;
  cudaMalloc(&d, 2 * N * sizeof(int));
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  fill<<<N / 64, 64, 0, s1>>>(d, 1);
  fill<<<N / 64, 64, 0, s2>>>(d + N, 2);
  cudaDeviceSynchronize();
  int h[2];
  cudaMemcpy(&h[0], d + N - 1, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h[1], d + N, sizeof(int), cudaMemcpyDeviceToHost);
  printf("%d %d\n", h[0], h[1]);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFree(d);
  return 0;
}
