// A kernel launched through cudaLaunchKernel on one non-blocking stream writes the buffer a kernel on
// another scales, with nothing between them; the same launch on the legacy default stream is ordered.
#include "kernels.h"
int main() {
  int *d;
  cudaMalloc(&d, N * sizeof(int));
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  int v = 5;
  void *args[] = {&d, &v};
  cudaLaunchKernel((const void *)fill, dim3(N / 64), dim3(64), args, 0, s1); // RACE
  scale<<<N / 64, 64, 0, s2>>>(d, 2); // RACE
  cudaDeviceSynchronize();
  cudaLaunchKernel((const void *)fill, dim3(N / 64), dim3(64), args, 0, 0);
  scale<<<N / 64, 64>>>(d, 2);
  int h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h);
  cudaFree(d);
  return 0;
}
