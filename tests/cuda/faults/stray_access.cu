// One thread of a grid writes far outside every allocation; with an argument, a device function
// recurses deeply enough to overflow the thread's stack. The cpu backend must stop each with a
// message naming the kernel, the thread and the source line, not crash.
#include <cstdio>
__global__ void stray(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 37) a[i + (1 << 28)] = 1;   // the stray write: line 7
  else if (i < n) a[i] = i;
}
__device__ int deep(int d) {
  volatile int pad[512];
  pad[d % 512] = d;   // line 12
  return d == 0 ? pad[0] : deep(d - 1) + pad[d % 512];
}
__global__ void recurse(int *out, int d) { out[threadIdx.x] = deep(d); }
int main(int argc, char **argv) {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  if (argc > 1) recurse<<<1, 2>>>(d, 100000);
  else stray<<<2, 32>>>(d, 64);
  cudaDeviceSynchronize();
  printf("done\n");
}
