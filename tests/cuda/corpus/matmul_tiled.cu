#include "corpus_util.h"
#define TILE 16
__global__ void matmul(const int *A, const int *B, int *C, int n) {
  __shared__ int As[TILE][TILE];
  __shared__ int Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x, acc = 0;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    As[threadIdx.y][threadIdx.x] = (row < n && t * TILE + threadIdx.x < n) ? A[row * n + t * TILE + threadIdx.x] : 0;
    Bs[threadIdx.y][threadIdx.x] = (col < n && t * TILE + threadIdx.y < n) ? B[(t * TILE + threadIdx.y) * n + col] : 0;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = acc;
}
int main() {
  const int n = 40;
  int A[n * n], B[n * n], C[n * n];
  for (int i = 0; i < n * n; ++i) { A[i] = rnd() % 10 - 5; B[i] = rnd() % 10 - 5; }
  int *dA = to_device(A, n * n), *dB = to_device(B, n * n), *dC;
  CK(cudaMalloc(&dC, sizeof C));
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  matmul<<<grid, block>>>(dA, dB, dC, n);
  to_host(C, dC, n * n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      int r = 0;
      for (int k = 0; k < n; ++k) r += A[i * n + k] * B[k * n + j];
      ok &= C[i * n + j] == r; s = s * 31 + (unsigned)C[i * n + j];
    }
  return verdict("matmul_tiled", ok, s);
}
