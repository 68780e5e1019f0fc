// The event is recorded on the wrong stream: the wait orders nothing of the first stream's work, and
// the host function between them orders nothing either.
#include "kernels.h"
static void CUDART_CB note(void *) {}
int main() {
  int *d;
  cudaMalloc(&d, N * sizeof(int));
  cudaStream_t s1, s2;
  cudaEvent_t e;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEventCreate(&e);
  fill<<<N / 64, 64, 0, s1>>>(d, 1);  // RACE
  cudaLaunchHostFunc(s1, note, nullptr);
  cudaEventRecord(e, s2);
  cudaStreamWaitEvent(s2, e, 0);
  add_one<<<N / 64, 64, 0, s2>>>(d);  // RACE
  cudaDeviceSynchronize();
  cudaEventDestroy(e);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFree(d);
  return 0;
}
