#include "corpus_util.h"
// One block per row: threads accumulate strided partial sums, then a shared-memory tree reduction.
__global__ void matvec(const int *A, const int *x, long long *y, int cols) {
  __shared__ long long part[128];
  long long acc = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += (long long)A[blockIdx.x * cols + c] * x[c];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = part[0];
}
int main() {
  const int rows = 50, cols = 700;
  int *A = (int *)malloc(rows * cols * sizeof(int)), x[cols];
  long long y[rows];
  for (int i = 0; i < rows * cols; ++i) A[i] = rnd() % 21 - 10;
  for (int c = 0; c < cols; ++c) x[c] = rnd() % 100;
  int *dA = to_device(A, rows * cols), *dx = to_device(x, cols);
  long long *dy;
  CK(cudaMalloc(&dy, sizeof y));
  matvec<<<rows, 128>>>(dA, dx, dy, cols);
  to_host(y, dy, rows);
  bool ok = true; unsigned long long s = 0;
  for (int r = 0; r < rows; ++r) { long long a = 0; for (int c = 0; c < cols; ++c) a += (long long)A[r * cols + c] * x[c]; ok &= a == y[r]; s = s * 3 + (unsigned long long)y[r]; }
  return verdict("matvec_shared_rows", ok, s);
}
