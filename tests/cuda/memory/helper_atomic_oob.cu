// atomic_oob's shared histogram counted through a helper (hirace/proofs/shared_calls.py): its atomics are
// quiet in the call, which passes the array, and one that lands past it is still reported.
#include <cstdio>
__device__ void count(unsigned *bins, int b) { atomicAdd_block(bins + b, 1u); }   // line 4
__global__ void histogram(const int *keys, int n, unsigned *out) {
  __shared__ unsigned local[8];
  __shared__ unsigned after[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 8) local[threadIdx.x] = after[threadIdx.x] = 0;
  __syncthreads();
  if (i < n) count(local, keys[i] * 8 / 100);   // keys of 100 land one past the end
  __syncthreads();
  if (threadIdx.x < 8) out[blockIdx.x * 8 + threadIdx.x] = local[threadIdx.x] + after[threadIdx.x];
}
int main() {
  const int n = 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 37) % 101;   // 0..100
  int *keys;
  unsigned *out;
  cudaMalloc(&keys, sizeof h);
  cudaMalloc(&out, 16 * sizeof(unsigned));
  cudaMemcpy(keys, h, sizeof h, cudaMemcpyHostToDevice);
  histogram<<<2, 128>>>(keys, n, out);
  unsigned got[16];
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  printf("bin 0: %u\n", got[0] + got[8]);
  return 0;
}
