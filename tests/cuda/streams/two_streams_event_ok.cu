// The second stream waits for an event recorded after the first kernel: ordered.
#include "kernels.h"
int main() {
  int *d;
  cudaMalloc(&d, N * sizeof(int));
  cudaStream_t s1, s2;
  cudaEvent_t done;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  fill<<<N / 64, 64, 0, s1>>>(d, 1);
  cudaEventRecord(done, s1);
  cudaStreamWaitEvent(s2, done, 0);
  scale<<<N / 64, 64, 0, s2>>>(d, 3);
  cudaStreamSynchronize(s2);
  int h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h);
  cudaEventDestroy(done);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFree(d);
  return 0;
}
