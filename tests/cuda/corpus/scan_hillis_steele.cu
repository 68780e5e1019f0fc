#include "corpus_util.h"
// Inclusive scan of one block of 512 elements, double-buffered in shared memory.
__global__ void scan(const int *in, int *out) {
  __shared__ int buf[2][512];
  int t = threadIdx.x, cur = 0;
  buf[0][t] = in[t];
  __syncthreads();
  for (int off = 1; off < 512; off <<= 1) {
    buf[1 - cur][t] = buf[cur][t] + (t >= off ? buf[cur][t - off] : 0);
    cur = 1 - cur;
    __syncthreads();
  }
  out[t] = buf[cur][t];
}
int main() {
  int h[512], r[512], o[512];
  for (int i = 0; i < 512; ++i) { h[i] = rnd() % 10; r[i] = h[i] + (i ? r[i - 1] : 0); }
  int *d = to_device(h, 512), *dout;
  CK(cudaMalloc(&dout, sizeof o));
  scan<<<1, 512>>>(d, dout);
  to_host(o, dout, 512);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < 512; ++i) { ok &= o[i] == r[i]; s = s * 7 + o[i]; }
  return verdict("scan_hillis_steele", ok, s);
}
