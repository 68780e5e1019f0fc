#include "corpus_util.h"
__global__ void bits(const unsigned *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = v[i];
  out[4 * i] = __popc(x);
  out[4 * i + 1] = __clz((int)x);
  out[4 * i + 2] = __ffs((int)x);
  out[4 * i + 3] = (int)(__brev(x) >> 16) + min((int)(x & 255), 100) + max(3, (int)(x >> 30));
}
int main() {
  const int n = 200;
  unsigned h[n];
  int o[4 * n];
  for (int i = 0; i < n; ++i) h[i] = (i % 17 == 0) ? 0u : (rnd() << 8) ^ rnd();
  unsigned *d = to_device(h, n);
  int *dout;
  CK(cudaMalloc(&dout, sizeof o));
  bits<<<2, 128>>>(d, dout, n);
  to_host(o, dout, 4 * n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) {
    unsigned x = h[i], rev = 0;
    for (int b = 0; b < 32; ++b) rev |= ((x >> b) & 1u) << (31 - b);
    int pc = __builtin_popcount(x), clz = x ? __builtin_clz(x) : 32, ffs = __builtin_ffs((int)x);
    int last = (int)(rev >> 16) + ((int)(x & 255) < 100 ? (int)(x & 255) : 100) + (3 > (int)(x >> 30) ? 3 : (int)(x >> 30));
    ok &= o[4 * i] == pc && o[4 * i + 1] == clz && o[4 * i + 2] == ffs && o[4 * i + 3] == last;
    s = s * 5 + o[4 * i] + o[4 * i + 1] + o[4 * i + 2] + o[4 * i + 3];
  }
  return verdict("intrinsics_bits", ok, s);
}
