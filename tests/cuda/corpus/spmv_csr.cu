#include "corpus_util.h"
__global__ void spmv(const int *row, const int *col, const int *val, const int *x, long long *y, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    long long acc = 0;
    for (int e = row[r]; e < row[r + 1]; ++e) acc += (long long)val[e] * x[col[e]];
    y[r] = acc;
  }
}
int main() {
  Csr g = random_graph(700, 4);
  int *val = (int *)malloc(g.m * sizeof(int)), *x = (int *)malloc(g.n * sizeof(int));
  long long *y = (long long *)malloc(g.n * sizeof(long long));
  for (int e = 0; e < g.m; ++e) val[e] = rnd() % 9 - 4;
  for (int i = 0; i < g.n; ++i) x[i] = rnd() % 100;
  int *dr = to_device(g.row, g.n + 1), *dc = to_device(g.col, g.m), *dv = to_device(val, g.m), *dx = to_device(x, g.n);
  long long *dy;
  CK(cudaMalloc(&dy, g.n * sizeof(long long)));
  spmv<<<(g.n + 127) / 128, 128>>>(dr, dc, dv, dx, dy, g.n);
  to_host(y, dy, g.n);
  bool ok = true; unsigned long long s = 0;
  for (int r = 0; r < g.n; ++r) { long long a = 0; for (int e = g.row[r]; e < g.row[r + 1]; ++e) a += (long long)val[e] * x[g.col[e]]; ok &= a == y[r]; s = s * 3 + (unsigned long long)y[r]; }
  return verdict("spmv_csr", ok, s);
}
