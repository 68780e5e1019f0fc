#include "corpus_util.h"
__global__ void counts(const int *v, int *out) {
  int x = v[blockIdx.x * blockDim.x + threadIdx.x];
  int c = __syncthreads_count(x % 3 == 0);
  int a = __syncthreads_and(x >= 0);
  int o = __syncthreads_or(x > 90);
  if (threadIdx.x == 0) { out[3 * blockIdx.x] = c; out[3 * blockIdx.x + 1] = a; out[3 * blockIdx.x + 2] = o; }
}
int main() {
  const int nb = 4, bs = 96;
  int h[nb * bs], out[3 * nb];
  for (int i = 0; i < nb * bs; ++i) h[i] = (i / bs == 2) ? (int)(rnd() % 50) : (int)(rnd() % 100) - (i / bs == 1);
  int *d = to_device(h, nb * bs), *dout;
  CK(cudaMalloc(&dout, sizeof out));
  counts<<<nb, bs>>>(d, dout);
  to_host(out, dout, 3 * nb);
  bool ok = true; unsigned long long s = 0;
  for (int b = 0; b < nb; ++b) {
    int c = 0, a = 1, o = 0;
    for (int t = 0; t < bs; ++t) { int x = h[b * bs + t]; c += x % 3 == 0; a &= x >= 0; o |= x > 90; }
    ok &= out[3 * b] == c && (out[3 * b + 1] != 0) == (a != 0) && (out[3 * b + 2] != 0) == (o != 0);
    s = s * 101 + c;
  }
  return verdict("syncthreads_count", ok, s);
}
