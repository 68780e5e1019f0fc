// One CUDA context's life: made, a tiny launch, synchronized; with an argument N, N of them one after
// another in one process (cudaDeviceReset between), each timed (bench/indigo_scale/context_starts.sh)
#include <cstdio>
#include <chrono>
__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  for (int r = 0; r < rounds; r++) {
    auto t0 = std::chrono::steady_clock::now();
    int *p;
    cudaMalloc(&p, 1024);
    k<<<1, 32>>>(p);
    cudaDeviceSynchronize();
    cudaFree(p);
    auto t1 = std::chrono::steady_clock::now();
    if (rounds > 1) cudaDeviceReset();
    auto t2 = std::chrono::steady_clock::now();
    if (rounds > 1) printf("round %d: up+run %.1f ms, reset %.1f ms\n", r,
                           std::chrono::duration<double, std::milli>(t1 - t0).count(),
                           std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  return 0;
}
