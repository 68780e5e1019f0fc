// cudaMemcpyAsync writes the program's own host memory, pinned by cudaHostRegister; the host reads it before
// synchronising the stream: a race. After the synchronise (and after cudaHostUnregister) its reads are ordered.
#include <cstdlib>
#include "kernels.h"
int main() {
  int *d;
  cudaMalloc(&d, N * sizeof(int));
  int *h = static_cast<int *>(std::aligned_alloc(4096, 4096));   // a whole page: hirace may close it
  cudaHostRegister(h, 4096, cudaHostRegisterDefault);
  cudaStream_t s;
  cudaStreamCreate(&s);
  fill<<<N / 64, 64, 0, s>>>(d, 7);
  cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, s);  // RACE
  int first = h[10];  // RACE
  cudaStreamSynchronize(s);
  int after = h[10];
  cudaHostUnregister(h);
  after += h[11];
  printf("%d %d\n", first, after);
  cudaStreamDestroy(s);
  std::free(h);
  cudaFree(d);
  return 0;
}
