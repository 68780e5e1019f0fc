#include "corpus_util.h"
__global__ void matmul(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0;
  for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
  C[row * n + col] = acc;
}
int main() {
  const int n = 33;
  float A[n * n], B[n * n], C[n * n];
  for (int i = 0; i < n * n; ++i) { A[i] = (rnd() % 16) / 4.0f; B[i] = (rnd() % 16) / 4.0f; }
  float *dA = to_device(A, n * n), *dB = to_device(B, n * n), *dC;
  CK(cudaMalloc(&dC, sizeof C));
  matmul<<<dim3(3, 3), dim3(16, 16)>>>(dA, dB, dC, n);
  to_host(C, dC, n * n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float r = 0;
      for (int k = 0; k < n; ++k) r += A[i * n + k] * B[k * n + j];
      ok &= std::fabs(C[i * n + j] - r) < 1e-3f; s += (unsigned long long)C[i * n + j];
    }
  return verdict("matmul_naive", ok, s);
}
