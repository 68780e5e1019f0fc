// A graph launched on one stream writes the buffer a kernel on another non-blocking stream scales, after
// the host synchronised the graph's stream: ordered.
#include "kernels.h"
int main() {
  int *d;
  cudaMalloc(&d, N * sizeof(int));
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  int v = 3;
  void *args[] = {&d, &v};
  cudaKernelNodeParams p = {};
  p.func = (void *)fill;
  p.gridDim = dim3(N / 64);
  p.blockDim = dim3(64);
  p.kernelParams = args;
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t k;
  cudaGraphAddKernelNode(&k, g, nullptr, 0, &p);
  cudaGraphExec_t x;
  cudaGraphInstantiate(&x, g, 0);
  cudaGraphLaunch(x, s1);
  cudaStreamSynchronize(s1);
  scale<<<N / 64, 64, 0, s2>>>(d, 2);
  cudaDeviceSynchronize();
  int h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h);
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaFree(d);
  return 0;
}
