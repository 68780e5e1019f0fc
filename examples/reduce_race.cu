// A block reduction with one barrier too few: the loop reads s[t + d] that
// another thread of the block may still be writing. hirace reports the race
// with both sites; add __syncthreads() at the end of the loop body to fix it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void block_sum(const int *in, int *out, int n) {
  __shared__ int s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = blockDim.x / 2; d > 0; d >>= 1) {
    if (t < d) s[t] += s[t + d];
    // missing: __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024, blocks = (n + 255) / 256;
  int *h = (int *)malloc(n * sizeof(int)), *part = (int *)malloc(blocks * sizeof(int)), *d, *o;
  long long ref = 0, sum = 0;
  for (int i = 0; i < n; ++i) { h[i] = i % 7; ref += h[i]; }
  cudaMalloc(&d, n * sizeof(int));
  cudaMalloc(&o, blocks * sizeof(int));
  cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice);
  block_sum<<<blocks, 256>>>(d, o, n);
  cudaMemcpy(part, o, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b) sum += part[b];
  printf("sum %lld (expected %lld)\n", sum, ref);
  return 0;
}
