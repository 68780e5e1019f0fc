#include "bench_common.h"
__global__ void hist(const unsigned *in, int n, unsigned *bins) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[in[i] & 255], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
int main(int argc, char **argv) {
  int n = arg_n(argc, argv, 1 << 22);
  unsigned *h = (unsigned *)malloc(n * 4), *d, *bins, hb[256];
  for (int i = 0; i < n; ++i) h[i] = brnd();
  cudaMalloc(&d, n * 4); cudaMalloc(&bins, 1024);
  cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice);
  cudaMemset(bins, 0, 1024);
  hist<<<256, 256>>>(d, n, bins);
  cudaMemset(bins, 0, 1024);
  Timer t;
  hist<<<256, 256>>>(d, n, bins);
  float ms = t.stop();
  cudaMemcpy(hb, bins, 1024, cudaMemcpyDeviceToHost);
  unsigned long long s = 0;
  for (int b = 0; b < 256; ++b) s += hb[b];
  printf("kernel_ms %.4f\ncheck %s\n", ms, s == (unsigned long long)n ? "PASS" : "FAIL");
  return 0;
}
