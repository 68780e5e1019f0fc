// A non-blocking stream does not wait for the legacy default stream: the read races with the write.
#include "kernels.h"
int main() {
  int *a, *b;
  cudaMalloc(&a, N * sizeof(int));
  cudaMalloc(&b, N * sizeof(int));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  fill<<<N / 64, 64>>>(a, 1);  // RACE
  copy_into<<<N / 64, 64, 0, s>>>(b, a);  // RACE
  cudaDeviceSynchronize();
  cudaStreamDestroy(s);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
