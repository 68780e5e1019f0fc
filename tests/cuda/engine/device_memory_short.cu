// Two 4 MiB buffers and a race on the first. On an emulated device of 100 MiB (CUDAEMU_DEVICE_MB=100)
// the program fits, and hirace's shadows fit beside it, but not its prior-site slots as well: the
// second cudaMalloc finds no room until hirace gives its site slots up. The program must run as it
// does alone, and the race still be reported.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i;
}

__global__ void racy(int *a) {
  a[0] = threadIdx.x;   // every thread of the block writes one word
}

int main() {
  const int n = 1 << 20;   // 4 MiB of ints
  int *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, n * sizeof(int)) != cudaSuccess) return 3;
  racy<<<1, 32>>>(a);
  if (cudaMalloc(&b, n * sizeof(int)) != cudaSuccess) return 4;
  fill<<<n / 256, 256>>>(b, n);
  int h = 0;
  cudaMemcpy(&h, b + 12345, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("b[12345] = %d\n", h);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
