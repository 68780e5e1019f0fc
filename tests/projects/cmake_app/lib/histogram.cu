#include "vecops.h"

// a block-wide histogram in shared memory; the bins are cleared and then counted
// without a barrier in between: a thread may count before another clears (a data race)
__global__ void histogram(const int *data, int n, int *bins) {
  __shared__ int local[BINS];
  if (threadIdx.x < BINS) local[threadIdx.x] = 0;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&local[data[i] % BINS], 1);
  __syncthreads();
  if (threadIdx.x < BINS) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int histogram_bins() { return BINS; }

void histogram_on_device(const int *d_data, int n, int *h_bins) {
  int *d_bins;
  cudaMalloc(&d_bins, BINS * sizeof(int));
  cudaMemset(d_bins, 0, BINS * sizeof(int));
  histogram<<<(n + 127) / 128, 128>>>(d_data, n, d_bins);
  cudaMemcpy(h_bins, d_bins, BINS * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_bins);
}
