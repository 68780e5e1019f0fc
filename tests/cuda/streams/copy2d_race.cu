// A kernel on one stream writes a pitched buffer that cudaMemcpy2DAsync on another non-blocking stream
// reads row by row, with nothing between them.
#include "kernels.h"
int main() {
  const size_t pitch = 80 * sizeof(int);   // (rows of 64 ints, 16 ints apart)
  int *d;
  cudaMalloc(&d, pitch * (N / 64));
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  int *h;
  cudaMallocHost(&h, N * sizeof(int));
  fill<<<1, 64, 0, s1>>>(d, 7); // RACE
  cudaMemcpy2DAsync(h, 64 * sizeof(int), d, pitch, 64 * sizeof(int), N / 64, cudaMemcpyDeviceToHost, s2); // RACE
  cudaDeviceSynchronize();
  printf("%d\n", h[0]);
  cudaFreeHost(h);
  cudaFree(d);
  return 0;
}
