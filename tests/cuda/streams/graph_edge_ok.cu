// Two kernel nodes of one graph write the same buffer, and an edge orders them (given when the second is added).
#include "kernels.h"
int main() {
  int *d;
  cudaMalloc(&d, N * sizeof(int));
  int one = 1, two = 2;
  void *args1[] = {&d, &one}, *args2[] = {&d, &two};
  cudaKernelNodeParams p = {};
  p.func = (void *)fill;
  p.gridDim = dim3(N / 64);
  p.blockDim = dim3(64);
  p.kernelParams = args1;
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t a, b;
  cudaGraphAddKernelNode(&a, g, nullptr, 0, &p);
  p.kernelParams = args2;
  cudaGraphAddKernelNode(&b, g, &a, 1, &p);
  cudaGraphExec_t x;
  cudaGraphInstantiate(&x, g, 0);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraphLaunch(x, s);
  cudaStreamSynchronize(s);
  int h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h);
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(d);
  return 0;
}
