// A kernel that never finishes: the runner's wall-clock timeout must stop it.
#include <cstdio>
__global__ void k(volatile int *flag) {
  while (*flag == 0) {}
}
int main() {
  int *d;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  k<<<1, 1>>>(d);
  cudaDeviceSynchronize();
  printf("unreachable\n");
  return 0;
}
