#include "corpus_util.h"
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }
__global__ void work(const int *a, const int *b, int *f, int *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { f[i] = fib(a[i] % 16); g[i] = gcd(a[i], b[i]); }
}
static int hfib(int n) { return n < 2 ? n : hfib(n - 1) + hfib(n - 2); }
static int hgcd(int a, int b) { return b == 0 ? a : hgcd(b, a % b); }
int main() {
  const int n = 300;
  int a[n], b[n], f[n], g[n];
  for (int i = 0; i < n; ++i) { a[i] = 1 + rnd() % 500; b[i] = 1 + rnd() % 500; }
  int *da = to_device(a, n), *db = to_device(b, n), *df, *dg;
  CK(cudaMalloc(&df, sizeof f)); CK(cudaMalloc(&dg, sizeof g));
  work<<<3, 128>>>(da, db, df, dg, n);
  to_host(f, df, n); to_host(g, dg, n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) { ok &= f[i] == hfib(a[i] % 16) && g[i] == hgcd(a[i], b[i]); s = s * 7 + f[i] + g[i]; }
  return verdict("device_recursion", ok, s);
}
