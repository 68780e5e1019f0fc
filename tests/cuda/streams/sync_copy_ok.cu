// A synchronous copy back to the host returns once it is done: a kernel on a non-blocking stream
// issued after it may overwrite the buffer.
#include "kernels.h"
int main() {
  int *d, h[N];
  cudaMalloc(&d, N * sizeof(int));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  fill<<<N / 64, 64>>>(d, 5);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  fill<<<N / 64, 64, 0, s>>>(d, 6);
  cudaStreamSynchronize(s);
  printf("%d\n", h[0]);
  cudaStreamDestroy(s);
  cudaFree(d);
  return 0;
}
