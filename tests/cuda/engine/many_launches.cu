// Launches that hirace does not wait for: more than its pending slots on the default stream, some on
// a stream of the program's own, a device reset in the middle. Races happen in launches 70, 74 and
// 78 only (numbered from 0, in program order) and one out-of-bounds write in launch 76; each must be
// reported against its own launch.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void clean(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1;
}

__global__ void racy(int *a) {
  a[0] = threadIdx.x;   // every thread of the block writes one word
}

__global__ void past_end(int *a, int n) {
  if (threadIdx.x == 0) a[n] = 1;   // one element past the buffer
}

int main() {
  int *a = nullptr;
  cudaMalloc(&a, 128 * sizeof(int));
  cudaMemset(a, 0, 128 * sizeof(int));
  cudaStream_t st;
  cudaStreamCreate(&st);
  for (int i = 0; i < 70; ++i) clean<<<1, 32>>>(a, 32);   // launches 0..69
  racy<<<1, 32>>>(a + 64);                                 // 70
  for (int i = 0; i < 3; ++i) clean<<<1, 32, 0, st>>>(a, 32);   // 71..73
  racy<<<1, 32, 0, st>>>(a + 65);                          // 74
  clean<<<1, 32>>>(a, 32);                                 // 75
  past_end<<<1, 32>>>(a, 128);                             // 76
  clean<<<1, 32>>>(a, 32);                                 // 77
  racy<<<1, 32>>>(a + 66);                                 // 78
  int h = 0;
  cudaMemcpy(&h, a, sizeof h, cudaMemcpyDeviceToHost);
  cudaStreamDestroy(st);
  cudaFree(a);
  cudaDeviceReset();
  int *b = nullptr;                                        // after the reset: a new buffer
  cudaMalloc(&b, 64 * sizeof(int));
  cudaMemset(b, 0, 64 * sizeof(int));
  for (int i = 0; i < 3; ++i) clean<<<2, 32>>>(b, 64);     // 79..81
  std::printf("a[0] = %d\n", h);
  cudaFree(b);
  return 0;
}
