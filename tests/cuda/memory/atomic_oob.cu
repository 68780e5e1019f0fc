// A histogram whose bin index can equal the number of bins: atomicAdd one past the end of the
// counts (device scope), and a block-scope atomic before the start of a shared array.
#include <cstdio>
__global__ void histogram(const int *keys, int n, unsigned *bins, int nbins) {
  __shared__ unsigned local[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 8) local[threadIdx.x] = 0;
  __syncthreads();
  if (i < n) {
    int b = keys[i] * nbins / 100;          // keys of 100 land in bin nbins
    atomicAdd(&bins[b], 1u);                 // line 11
    atomicAdd_block(&local[b - 1], 1u);      // line 12: keys of 0 give local[-1]
  }
}
int main() {
  const int n = 256, nbins = 8;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 37) % 101;   // 0..100
  int *keys;
  unsigned *bins;
  cudaMalloc(&keys, sizeof h);
  cudaMalloc(&bins, nbins * sizeof(unsigned));
  cudaMemcpy(keys, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(bins, 0, nbins * sizeof(unsigned));
  histogram<<<2, 128>>>(keys, n, bins, nbins);
  unsigned out[nbins];
  cudaMemcpy(out, bins, sizeof out, cudaMemcpyDeviceToHost);
  printf("bin 0: %u\n", out[0]);
  return 0;
}
