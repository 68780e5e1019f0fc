// A kernel on one stream writes a buffer that cudaFreeAsync on another non-blocking stream frees; the free
// waits for the allocation (an event recorded after it) but not for the kernel: a use after free.
#include "kernels.h"
int main() {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  int *d;
  cudaMallocAsync(&d, N * sizeof(int), s1);
  cudaEventRecord(allocated, s1);
  fill<<<N / 64, 64, 0, s1>>>(d, 4); // RACE
  cudaStreamWaitEvent(s2, allocated, 0);
  cudaFreeAsync(d, s2); // RACE
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
