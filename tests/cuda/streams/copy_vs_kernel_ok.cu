// The copy back waits for the kernel through an event; the next upload waits for the copy back.
#include "kernels.h"
int main() {
  int *d, *h;
  cudaMalloc(&d, N * sizeof(int));
  cudaMallocHost(&h, N * sizeof(int));
  cudaStream_t compute, transfer;
  cudaEvent_t produced, fetched;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&transfer, cudaStreamNonBlocking);
  cudaEventCreate(&produced);
  cudaEventCreate(&fetched);
  fill<<<N / 64, 64, 0, compute>>>(d, 7);
  cudaEventRecord(produced, compute);
  cudaStreamWaitEvent(transfer, produced, 0);
  cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, transfer);
  cudaEventRecord(fetched, transfer);
  cudaStreamWaitEvent(compute, fetched, 0);
  cudaMemsetAsync(d, 0, N * sizeof(int), compute);
  cudaEventSynchronize(fetched);
  printf("%d\n", h[0]);
  cudaStreamSynchronize(compute);
  cudaEventDestroy(produced);
  cudaEventDestroy(fetched);
  cudaStreamDestroy(compute);
  cudaStreamDestroy(transfer);
  cudaFreeHost(h);
  cudaFree(d);
  return 0;
}
