// A buffer allocated with cudaMallocAsync on one stream is written by a kernel on another non-blocking
// stream that nothing orders after the allocation.
#include "kernels.h"
int main() {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  int *d;
  cudaMallocAsync(&d, N * sizeof(int), s1); // RACE
  fill<<<N / 64, 64, 0, s2>>>(d, 4); // RACE
  cudaDeviceSynchronize();
  int h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h);
  cudaFreeAsync(d, s2);
  cudaStreamSynchronize(s2);   // (the copy and the free come after the device synchronised: ordered)
  return 0;
}
