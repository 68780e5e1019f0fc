// A capture forks to a second stream that never joins back: cudaStreamEndCapture fails with
// cudaErrorStreamCaptureUnjoined, as CUDA's does, and no graph is made (nothing ran: no race).
#include "kernels.h"
int main() {
  int *d;
  cudaMalloc(&d, N * sizeof(int));
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEvent_t fork;
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaGraph_t g = nullptr;
  cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
  cudaEventRecord(fork, s1);
  cudaStreamWaitEvent(s2, fork, 0);
  fill<<<N / 64, 64, 0, s2>>>(d, 2);
  scale<<<N / 64, 64, 0, s1>>>(d, 5);
  cudaError_t e = cudaStreamEndCapture(s1, &g);
  cudaStreamCaptureStatus st2;
  cudaStreamIsCapturing(s2, &st2);
  printf("%s %s %d\n", cudaGetErrorName(e), g ? "graph" : "no graph", int(st2));
  cudaFree(d);
  return e == cudaErrorStreamCaptureUnjoined && !g && st2 == cudaStreamCaptureStatusNone ? 0 : 1;
}
