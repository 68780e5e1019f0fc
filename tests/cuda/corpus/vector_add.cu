#include "corpus_util.h"
__global__ void vadd(const int *a, const int *b, int *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
int main() {
  const int n = 1000;
  int a[n], b[n], c[n];
  for (int i = 0; i < n; ++i) { a[i] = rnd() % 1000; b[i] = rnd() % 1000; }
  int *da = to_device(a, n), *db = to_device(b, n), *dc;
  CK(cudaMalloc(&dc, sizeof c));
  vadd<<<(n + 127) / 128, 128>>>(da, db, dc, n);
  CK(cudaGetLastError());
  to_host(c, dc, n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) { ok &= c[i] == a[i] + b[i]; s = s * 31 + c[i]; }
  return verdict("vector_add", ok, s);
}
