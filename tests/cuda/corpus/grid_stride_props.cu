#include "corpus_util.h"
__global__ void fill(long long *v, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
    v[i] = i * i % 1009;
}
int main() {
  cudaDeviceProp p;
  int dev = -1, count = 0;
  CK(cudaGetDeviceCount(&count));
  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&p, dev));
  const long long n = 50000;
  long long *d, *h = (long long *)malloc(n * sizeof(long long));
  CK(cudaMalloc(&d, n * sizeof(long long)));
  int blocks = p.multiProcessorCount > 4 ? 4 : p.multiProcessorCount;
  fill<<<blocks, p.warpSize * 4>>>(d, n);
  CK(cudaGetLastError());
  to_host(h, d, n);
  bool ok = count >= 1 && p.warpSize == 32 && p.maxThreadsPerBlock >= 1024;
  unsigned long long s = 0;
  for (long long i = 0; i < n; ++i) { ok &= h[i] == i * i % 1009; s += h[i]; }
  return verdict("grid_stride_props", ok, s);
}
