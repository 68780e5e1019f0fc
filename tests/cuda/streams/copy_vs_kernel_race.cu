// A copy back on one stream reads the buffer a kernel on another stream writes: no wait between them.
#include "kernels.h"
int main() {
  int *d, *h;
  cudaMalloc(&d, N * sizeof(int));
  cudaMallocHost(&h, N * sizeof(int));
  cudaStream_t compute, transfer;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&transfer, cudaStreamNonBlocking);
  fill<<<N / 64, 64, 0, compute>>>(d, 7);  // RACE
  cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, transfer);  // RACE
  cudaStreamSynchronize(transfer);
  cudaStreamSynchronize(compute);
  printf("%d\n", h[0]);
  cudaStreamDestroy(compute);
  cudaStreamDestroy(transfer);
  cudaFreeHost(h);
  cudaFree(d);
  return 0;
}
