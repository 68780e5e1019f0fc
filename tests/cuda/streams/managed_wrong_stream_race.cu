// A kernel on one stream writes managed memory; the host synchronises another stream, then reads.
#include "kernels.h"
int main() {
  int *m, *d;
  cudaMallocManaged(&m, N * sizeof(int));
  cudaMalloc(&d, N * sizeof(int));
  cudaStream_t compute, other;
  cudaStreamCreate(&compute);
  cudaStreamCreate(&other);
  fill<<<N / 64, 64, 0, compute>>>(m, 7);  // RACE
  fill<<<N / 64, 64, 0, other>>>(d, 1);
  cudaStreamSynchronize(other);
  printf("%d\n", m[5]);  // RACE
  cudaStreamSynchronize(compute);
  cudaStreamDestroy(compute);
  cudaStreamDestroy(other);
  cudaFree(d);
  cudaFree(m);
  return 0;
}
