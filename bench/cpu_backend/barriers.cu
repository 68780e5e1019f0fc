// 256 blocks x 1024 threads, 16 __syncthreads each: the cpu backend's
// context-switch benchmark. Prints the kernel time and, on the cpu backend,
// the number of fiber switches it made.
#include <chrono>
#include <cstdio>

__global__ void phases(int *out, int rounds) {
  __shared__ int buf[1024];
  int t = threadIdx.x, acc = t;
  for (int r = 0; r < rounds; ++r) {
    buf[t] = acc;
    __syncthreads();
    acc += buf[(t + r + 1) % blockDim.x];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}

int main() {
  const int blocks = 256, threads = 1024, rounds = 8;  // 16 barriers
  int *d;
  cudaMalloc(&d, sizeof(int) * blocks * threads);
  phases<<<1, threads>>>(d, rounds);  // warm-up (stacks, page faults)
  cudaDeviceSynchronize();
  auto t0 = std::chrono::steady_clock::now();
#ifdef CUDAEMU
  unsigned long long s0 = ::cudaemu::switch_count();
#endif
  phases<<<blocks, threads>>>(d, rounds);
  cudaDeviceSynchronize();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int h = 0;
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
#ifdef CUDAEMU
  unsigned long long sw = ::cudaemu::switch_count() - s0;
#else
  unsigned long long sw = 0;
#endif
  printf("{\"blocks\": %d, \"threads\": %d, \"barriers\": %d, \"kernel_s\": %.6f, \"switches\": %llu, "
         "\"switches_per_s\": %.0f, \"check\": %d}\n", blocks, threads, 2 * rounds, secs, sw,
         secs > 0 ? sw / secs : 0.0, h);
  return 0;
}
