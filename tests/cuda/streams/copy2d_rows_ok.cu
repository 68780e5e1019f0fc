// A kernel writes the gap between the first and second rows of a pitched buffer while cudaMemcpy2DAsync on
// another stream reads four rows: the copy touches the rows only, so their bytes never meet (no race),
// although the copy's first and last bytes lie on either side of the kernel's.
#include "kernels.h"
int main() {
  const size_t pitch = 128 * sizeof(int);   // (rows of 64 ints, 128 ints apart)
  int *d;
  cudaMalloc(&d, pitch * 4);
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  int *h;
  cudaMallocHost(&h, 4 * 64 * sizeof(int));
  fill<<<1, 64, 0, s1>>>(d + 64, 7);
  cudaMemcpy2DAsync(h, 64 * sizeof(int), d, pitch, 64 * sizeof(int), 4, cudaMemcpyDeviceToHost, s2);
  cudaDeviceSynchronize();
  printf("%d\n", h[0]);
  cudaFreeHost(h);
  cudaFree(d);
  return 0;
}
