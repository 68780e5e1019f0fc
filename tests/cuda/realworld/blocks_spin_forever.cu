// A block that waits for a flag nobody sets, and a counter barrier that needs every block live.
#include <cstdio>
__global__ void never(int *flag) { if (threadIdx.x == 0) while (atomicAdd(flag, 0) == 0) {} }
__global__ void many(int *count, int n) {   // a grid barrier through a counter: every block must be live
  if (threadIdx.x == 0) { atomicAdd(count, 1); while (atomicAdd(count, 0) < n) {} }
}
int main(int argc, char **argv) {
  int *f; cudaMallocManaged(&f, 4); *f = 0;
  if (argc > 1 && argv[1][0] == 'n') never<<<4, 32>>>(f);
  else { many<<<atoi(argv[1]), 32>>>(f, atoi(argv[1])); }
  cudaDeviceSynchronize(); printf("done %d\n", *f);
}
