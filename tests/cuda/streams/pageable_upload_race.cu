// A synchronous copy from pageable memory returns once the data is staged: its transfer to the device
// may still run while a kernel on a non-blocking stream reads the buffer.
#include "kernels.h"
int main() {
  int *d, *out, h[N];
  for (int i = 0; i < N; ++i) h[i] = i;
  cudaMalloc(&d, N * sizeof(int));
  cudaMalloc(&out, N * sizeof(int));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);  // RACE
  copy_into<<<N / 64, 64, 0, s>>>(out, d);  // RACE
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  cudaFree(d);
  cudaFree(out);
  return 0;
}
