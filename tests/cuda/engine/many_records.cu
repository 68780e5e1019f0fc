// Many records for hirace's logs: six sites that race (each word of a site written by eight threads
// of two blocks), and one site that writes past the end of two buffers (which buffer: by block).
#include <cstdio>
__global__ void races(int *a) {
  unsigned w = threadIdx.x % 8;
  a[w] = threadIdx.x;
  a[8 + w] = threadIdx.x;
  a[16 + w] = threadIdx.x;
  a[24 + w] = threadIdx.x;
  a[32 + w] = threadIdx.x;
  a[40 + w] = threadIdx.x;
}
__global__ void past_end(int *a, int *b) {
  int *p = blockIdx.x % 2 ? b : a;
  p[threadIdx.x + 32] = 1;
}
int main() {
  int *a, *b, *c;
  cudaMalloc(&a, 48 * sizeof(int));
  cudaMalloc(&b, 32 * sizeof(int));
  cudaMalloc(&c, 32 * sizeof(int));
  races<<<2, 32>>>(a);
  past_end<<<4, 32>>>(b, c);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
