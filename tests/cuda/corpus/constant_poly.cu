#include "corpus_util.h"
__constant__ int coeff[8];
__global__ void poly(const int *x, long long *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long acc = 0;
  for (int k = 7; k >= 0; --k) acc = acc * x[i] + coeff[k];
  y[i] = acc;
}
int main() {
  const int n = 500;
  int c[8], x[n];
  long long y[n];
  for (int k = 0; k < 8; ++k) c[k] = rnd() % 7 - 3;
  for (int i = 0; i < n; ++i) x[i] = rnd() % 11 - 5;
  CK(cudaMemcpyToSymbol(coeff, c, sizeof c));
  int back[8];
  CK(cudaMemcpyFromSymbol(back, coeff, sizeof back));
  int *dx = to_device(x, n);
  long long *dy;
  CK(cudaMalloc(&dy, sizeof y));
  poly<<<4, 128>>>(dx, dy, n);
  to_host(y, dy, n);
  bool ok = true; unsigned long long s = 0;
  for (int k = 0; k < 8; ++k) ok &= back[k] == c[k];
  for (int i = 0; i < n; ++i) { long long a = 0; for (int k = 7; k >= 0; --k) a = a * x[i] + c[k]; ok &= a == y[i]; s = s * 3 + (unsigned long long)y[i]; }
  return verdict("constant_poly", ok, s);
}
