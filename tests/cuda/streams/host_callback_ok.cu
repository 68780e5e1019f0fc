// Host functions are operations of their stream: the event recorded after them still orders the
// second stream's kernel after the first stream's.
#include "kernels.h"
static int calls = 0;
static void CUDART_CB note(void *) { ++calls; }
static void CUDART_CB noted(cudaStream_t, cudaError_t, void *) { ++calls; }
int main() {
  int *d;
  cudaMalloc(&d, N * sizeof(int));
  cudaStream_t s1, s2;
  cudaEvent_t e;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEventCreate(&e);
  fill<<<N / 64, 64, 0, s1>>>(d, 1);
  cudaLaunchHostFunc(s1, note, nullptr);
  cudaStreamAddCallback(s1, noted, nullptr, 0);
  cudaEventRecord(e, s1);
  cudaStreamWaitEvent(s2, e, 0);
  add_one<<<N / 64, 64, 0, s2>>>(d);
  cudaDeviceSynchronize();
  printf("%d host functions ran\n", calls);
  cudaEventDestroy(e);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFree(d);
  return 0;
}
