// The cpu backend's scheduling benchmark: 256 blocks x 1024 threads with 16
// __syncthreads each (context switches), and 16M threads of a kernel with no
// barrier (what running a thread costs). Prints the kernel times and, on the
// cpu backend, the number of fiber switches each made.
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

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

template <class F> double timed(F f, unsigned long long *switches) {
  auto t0 = std::chrono::steady_clock::now();
#ifdef CUDAEMU
  unsigned long long s0 = ::cudaemu::switch_count();
#endif
  f();
  cudaDeviceSynchronize();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
#ifdef CUDAEMU
  *switches = ::cudaemu::switch_count() - s0;
#else
  *switches = 0;
#endif
  return secs;
}

int main() {
  const int blocks = 256, threads = 1024, rounds = 8;  // 16 barriers
  int *d;
  cudaMalloc(&d, sizeof(int) * blocks * threads);
  phases<<<1, threads>>>(d, rounds);  // warm-up (stacks, page faults)
  cudaDeviceSynchronize();
  unsigned long long sw = 0, flat_sw = 0;
  double secs = timed([&] { phases<<<blocks, threads>>>(d, rounds); }, &sw);
  int h = 0;
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  const int n = 1 << 24;
  float *x, *y;
  cudaMalloc(&x, sizeof(float) * n);
  cudaMalloc(&y, sizeof(float) * n);
  cudaMemset(x, 0, sizeof(float) * n);
  cudaMemset(y, 0, sizeof(float) * n);
  double flat = timed([&] { saxpy<<<n / 256, 256>>>(y, x, 2.0f, n); }, &flat_sw);
  printf("{\"blocks\": %d, \"threads\": %d, \"barriers\": %d, \"kernel_s\": %.6f, \"switches\": %llu, "
         "\"switches_per_s\": %.0f, \"check\": %d, \"flat_threads\": %d, \"flat_kernel_s\": %.6f, "
         "\"flat_switches\": %llu, \"flat_threads_per_s\": %.0f}\n", blocks, threads, 2 * rounds, secs, sw,
         secs > 0 ? sw / secs : 0.0, h, n, flat, flat_sw, flat > 0 ? n / flat : 0.0);
  return 0;
}
