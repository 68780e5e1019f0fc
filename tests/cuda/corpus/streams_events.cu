#include "corpus_util.h"
__global__ void inc(int *v, int n, int by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += by;
}
int main() {
  const int n = 1024;
  int h[n], o[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  cudaStream_t s1, s2;
  cudaEvent_t start, stop;
  CK(cudaStreamCreate(&s1)); CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CK(cudaEventCreate(&start)); CK(cudaEventCreate(&stop));
  int *d;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaEventRecord(start, s1));
  CK(cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyHostToDevice, s1));
  inc<<<n / 256, 256, 0, s1>>>(d, n, 5);
  CK(cudaStreamSynchronize(s1));
  inc<<<n / 256, 256, 0, s2>>>(d, n, 2);
  CK(cudaMemcpyAsync(o, d, sizeof o, cudaMemcpyDeviceToHost, s2));
  CK(cudaEventRecord(stop, s2));
  CK(cudaEventSynchronize(stop));
  float ms = -1;
  CK(cudaEventElapsedTime(&ms, start, stop));
  CK(cudaDeviceSynchronize());
  bool ok = ms >= 0; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) { ok &= o[i] == i + 7; s += o[i]; }
  CK(cudaStreamDestroy(s1)); CK(cudaStreamDestroy(s2)); CK(cudaEventDestroy(start)); CK(cudaEventDestroy(stop));
  return verdict("streams_events", ok, s);
}
