// Two kernels on two non-blocking streams write overlapping parts of one buffer, each through a pointer into
// it (the second starts at the first's last element): nothing orders them, and they share that word.
#include "kernels.h"
int main() {
  int *d;
  cudaMalloc(&d, 2 * N * sizeof(int));
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  fill<<<N / 64, 64, 0, s1>>>(d, 1);  // RACE
  fill<<<N / 64, 64, 0, s2>>>(d + N - 1, 2);  // RACE
  cudaDeviceSynchronize();
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFree(d);
  return 0;
}
