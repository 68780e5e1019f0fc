// How large a program runs under hirace: two int buffers holding PERCENT of the device's free memory
// (argv[1]), filled and summed by kernels; argv[2] == "race" adds a racy write to the first word.
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void fill(int *a, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    a[i] = int(i % 7);
}

__global__ void add(const int *a, int *b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    b[i] = a[i] + 1;
}

__global__ void racy(int *a) { a[0] = threadIdx.x; }

__global__ void total(const int *b, size_t n, unsigned long long *sum) {
  unsigned long long s = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) s += b[i];
  atomicAdd(sum, s);
}

int main(int argc, char **argv) {
  double percent = argc > 1 ? std::atof(argv[1]) : 10;
  bool race = argc > 2 && !std::strcmp(argv[2], "race");
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return 3;
  size_t n = size_t(free_bytes * percent / 100 / 2 / sizeof(int)) / 256 * 256;
  int *a = nullptr, *b = nullptr;
  unsigned long long *sum = nullptr, h = 0;
  if (cudaMalloc(&a, n * sizeof(int)) != cudaSuccess || cudaMalloc(&b, n * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&sum, sizeof *sum) != cudaSuccess) {
    std::printf("no room for %zu MiB\n", 2 * n * sizeof(int) >> 20);
    return 4;
  }
  fill<<<1024, 256>>>(a, n);
  if (race) racy<<<1, 32>>>(a);
  add<<<1024, 256>>>(a, b, n);
  cudaMemset(sum, 0, sizeof *sum);
  total<<<1024, 256>>>(b, n, sum);
  cudaMemcpy(&h, sum, sizeof h, cudaMemcpyDeviceToHost);
  unsigned long long want = 0;
  for (size_t r = 0; r < 7; ++r) want += (n / 7 + (r < n % 7)) * (r + 1);
  if (race) want = h;   // the first word depends on which thread wrote last
  cudaError_t e = cudaGetLastError();
  std::printf("buffers %zu MiB of %zu MiB free: %s\n", 2 * n * sizeof(int) >> 20, free_bytes >> 20,
              e == cudaSuccess && h == want ? "PASS" : "FAIL");
  cudaFree(a), cudaFree(b), cudaFree(sum);
  return e == cudaSuccess && h == want ? 0 : 1;
}
