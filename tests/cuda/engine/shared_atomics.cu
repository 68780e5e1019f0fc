// Atomics on a shared array (instrument/intervals.py). In `hist` every access to `local` between the
// two barriers is an atomic, and atomics never race with each other: hirace checks only their
// bounds, and still reports the one past the end (launch 1, line 12). In `peek` thread 5 also reads
// local[3] plainly while thread 3 adds to it: an atomic-plain race (line 22 against line 21).
#include <cstdio>

__global__ void hist(const unsigned *in, unsigned *bins, int past) {
  __shared__ unsigned local[64];
  local[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&local[in[threadIdx.x] & 63], 1u);
  if (past) atomicAdd(&local[64], 1u);
  __syncthreads();
  bins[threadIdx.x] = local[threadIdx.x];
}

__global__ void peek(const unsigned *in, unsigned *bins) {
  __shared__ unsigned local[64];
  local[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&local[in[threadIdx.x] & 63], 1u);
  if (threadIdx.x == 5) bins[0] = local[3];
  __syncthreads();
  bins[threadIdx.x + 1] = local[threadIdx.x] + 1;
}

int main() {
  unsigned *in, *bins, h[64];
  for (unsigned i = 0; i < 64; ++i) h[i] = i;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&bins, 128 * sizeof(unsigned));
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  hist<<<1, 64>>>(in, bins, 0);
  hist<<<1, 64>>>(in, bins, 1);
  peek<<<1, 64>>>(in, bins);
  cudaMemcpy(h, bins, sizeof h, cudaMemcpyDeviceToHost);
  printf("bin 7: %u\n", h[7]);
  cudaFree(in);
  cudaFree(bins);
  return 0;
}
