#include "corpus_util.h"
__global__ void reverse(int *d, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[n - t - 1];
}
int main() {
  const int n = 300;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = rnd() % 1000;
  int *d = to_device(h, n), o[n];
  reverse<<<1, n, n * sizeof(int)>>>(d, n);
  to_host(o, d, n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) { ok &= o[i] == h[n - 1 - i]; s = s * 11 + o[i]; }
  return verdict("dynamic_shared_reverse", ok, s);
}
