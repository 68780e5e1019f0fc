// An unsynchronised read-modify-write race: with seeded thread switches at
// instrumented accesses the result varies; plain, it is always 64.
#include <cstdio>
__global__ void k(int *sum) {
  int v = *sum;
  *sum = v + 1;
}
int main() {
  int *d, h = 0;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  k<<<1, 64>>>(d);
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  printf("sum %d\n", h);
  return 0;
}
