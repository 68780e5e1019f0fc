// A program in the style of public samples: a helper header with guarded helpers, allocations
// inside a stringizing macro, math and printf from the implicit C headers, one racy kernel.
#include <cuda_runtime.h>
#include <cstdio>
#include "check_helpers.h"

__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(fabsf(in[i])) * 2.0f;
  if (i == 0) printf("kernel sees n=%d\n", n);
}

__global__ void count_racy(int *total, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 1.0f) *total = *total + 1;   // RACE: plain read-modify-write by every thread
}

int main() {
  if (pickDevice() != 0) return 1;
  const int n = 256;
  float *h = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) h[i] = (float)(i % 7) - 3.0f;
  float *d_in, *d_out;
  int *d_total;
  checkErrors(cudaMalloc((void **)&d_in, n * sizeof(float)));
  checkErrors(cudaMalloc(&d_out, n * sizeof(float)));
  checkErrors(cudaMalloc(&d_total, sizeof(int)));
  checkErrors(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
  checkErrors(cudaMemset(d_total, 0, sizeof(int)));
  scale<<<n / 64, 64>>>(d_out, d_in, n);
  count_racy<<<n / 64, 64>>>(d_total, d_in, n);
  checkErrors(cudaGetLastError());
  float out[n];
  checkErrors(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += fabs(out[i]);
  printf("sum %.3f max %d\n", sum, INT_MAX > n);
  checkErrors(cudaFree(d_in));
  checkErrors(cudaFree(d_out));
  checkErrors(cudaFree(d_total));
  free(h);
  return 0;
}
