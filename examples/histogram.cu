// Histogram of n pseudo-random bytes into 64 bins: shared-memory privatised
// bins, block-wide barriers, and atomics. Prints the bins' checksum and
// whether the result matches a sequential reference.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BINS 64

__global__ void histogram(const unsigned char *data, int n, unsigned *bins) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i] % BINS], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  unsigned char *h = (unsigned char *)malloc(n);
  unsigned seed = 12345u;
  for (int i = 0; i < n; ++i) { seed = seed * 1103515245u + 12345u; h[i] = (unsigned char)(seed >> 16); }
  unsigned char *d;
  unsigned *dbins, bins[BINS], ref[BINS] = {0};
  cudaMalloc(&d, n);
  cudaMalloc(&dbins, sizeof bins);
  cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);
  cudaMemset(dbins, 0, sizeof bins);
  histogram<<<8, 128>>>(d, n, dbins);
  cudaMemcpy(bins, dbins, sizeof bins, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) ref[h[i] % BINS]++;
  unsigned long long sum = 0;
  int ok = 1;
  for (int b = 0; b < BINS; ++b) { sum = sum * 31 + bins[b]; ok &= bins[b] == ref[b]; }
  printf("checksum %llu\n%s\n", sum, ok ? "PASS" : "FAIL");
  cudaFree(d); cudaFree(dbins); free(h);
  return ok ? 0 : 1;
}
