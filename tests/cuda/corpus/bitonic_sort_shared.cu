#include "corpus_util.h"
#define N 512
__global__ void bitonic(int *d) {
  __shared__ int s[N];
  int t = threadIdx.x;
  s[t] = d[t];
  s[t + N / 2] = d[t + N / 2];
  __syncthreads();
  for (int k = 2; k <= N; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      int i = 2 * t - (t & (j - 1)), p = i + j;
      bool up = (i & k) == 0;
      if ((s[i] > s[p]) == up) { int x = s[i]; s[i] = s[p]; s[p] = x; }
      __syncthreads();
    }
  d[t] = s[t];
  d[t + N / 2] = s[t + N / 2];
}
int main() {
  int h[N], o[N];
  for (int i = 0; i < N; ++i) h[i] = rnd() % 10000;
  int *d = to_device(h, N);
  bitonic<<<1, N / 2>>>(d);
  to_host(o, d, N);
  long long sh = 0, so = 0;
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < N; ++i) { sh += h[i]; so += o[i]; if (i) ok &= o[i - 1] <= o[i]; s = s * 3 + o[i]; }
  return verdict("bitonic_sort_shared", ok && sh == so, s);
}
