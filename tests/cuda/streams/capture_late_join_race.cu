// A capture forks to a second stream whose kernel writes the buffer the origin's kernel scales; the second
// stream joins back only after that kernel, so in the captured graph the two nodes have no path between them.
#include "kernels.h"
int main() {
  int *d;
  cudaMalloc(&d, N * sizeof(int));
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEvent_t fork, join;
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  cudaGraph_t g;
  cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
  cudaEventRecord(fork, s1);
  cudaStreamWaitEvent(s2, fork, 0);
  fill<<<N / 64, 64, 0, s2>>>(d, 2); // RACE
  scale<<<N / 64, 64, 0, s1>>>(d, 5); // RACE
  cudaEventRecord(join, s2);
  cudaStreamWaitEvent(s1, join, 0);
  cudaStreamEndCapture(s1, &g);
  cudaGraphExec_t x;
  cudaGraphInstantiate(&x, g, 0);
  cudaGraphLaunch(x, s1);
  cudaStreamSynchronize(s1);
  int h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h);
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaFree(d);
  return 0;
}
