// A buffer allocated with cudaMallocAsync on one stream is used on another after an event recorded after
// the allocation, and freed on that stream after its last use: ordered. A second allocation after the
// free may get the same memory back: no race with the first buffer's uses.
#include "kernels.h"
int main() {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  int *d, *e;
  cudaMallocAsync(&d, N * sizeof(int), s1);
  cudaEventRecord(ready, s1);
  cudaStreamWaitEvent(s2, ready, 0);
  fill<<<N / 64, 64, 0, s2>>>(d, 4);
  cudaFreeAsync(d, s2);
  cudaMallocAsync(&e, N * sizeof(int), s1);
  fill<<<N / 64, 64, 0, s1>>>(e, 6);
  int h = 0;
  cudaMemcpyAsync(&h, e, sizeof h, cudaMemcpyDeviceToHost, s1);
  cudaStreamSynchronize(s1);
  printf("%d\n", h);
  cudaFreeAsync(e, s1);
  cudaDeviceSynchronize();
  return 0;
}
