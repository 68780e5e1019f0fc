// cudaMemcpyAsync writes pinned host memory; the host synchronises the stream, then reads: ordered. Then
// the same through a captured graph and a 2D copy, issued while an earlier copy that reads the pinned
// memory is not yet known done (its pages closed to the host): the graph's copy node and the 2D copy write
// it inside CUDA calls, which are no host accesses.
#include "kernels.h"
int main() {
  int *d, *d2, *h;
  cudaMalloc(&d, N * sizeof(int));
  cudaMalloc(&d2, N * sizeof(int));
  cudaMallocHost(&h, N * sizeof(int));
  for (int i = 0; i < N; ++i) h[i] = -1;
  cudaStream_t s;
  cudaStreamCreate(&s);
  fill<<<N / 64, 64, 0, s>>>(d, 7);
  cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  int sum = 0;
  for (int i = 0; i < N; ++i) sum += h[i];
  cudaMemcpyAsync(d2, h, N * sizeof(int), cudaMemcpyHostToDevice, s);
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaStreamEndCapture(s, &g);
  cudaGraphInstantiate(&ge, g, 0);
  cudaGraphLaunch(ge, s);
  cudaMemcpy2DAsync(h, 64 * sizeof(int), d2, 64 * sizeof(int), 64 * sizeof(int), N / 64, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  int again = 0;
  for (int i = 0; i < N; ++i) again += h[i];
  printf("%d %d\n", sum, again);
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFreeHost(h);
  cudaFree(d2);
  cudaFree(d);
  return 0;
}
