// A kernel on a stream writes managed memory; the host synchronises that stream, then reads: ordered.
#include "kernels.h"
int main() {
  int *m;
  cudaMallocManaged(&m, N * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  fill<<<N / 64, 64, 0, s>>>(m, 7);
  cudaStreamSynchronize(s);
  printf("%d\n", m[N - 1]);
  cudaStreamDestroy(s);
  cudaFree(m);
  return 0;
}
