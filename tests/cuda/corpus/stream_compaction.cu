#include "corpus_util.h"
// Keep the even values: each kept element claims an output slot with an atomic counter.
__global__ void compact(const int *in, int n, int *out, int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] % 2 == 0) out[atomicAdd(count, 1)] = in[i];
}
int main() {
  const int n = 3000;
  int *h = (int *)malloc(n * sizeof(int)), *o = (int *)malloc(n * sizeof(int)), cnt = 0, ref = 0;
  long long rsum = 0, osum = 0;
  for (int i = 0; i < n; ++i) { h[i] = rnd() % 1000; if (h[i] % 2 == 0) { ref++; rsum += h[i]; } }
  int *d = to_device(h, n), *dout, *dc = to_device(&cnt, 1);
  CK(cudaMalloc(&dout, n * sizeof(int)));
  compact<<<(n + 127) / 128, 128>>>(d, n, dout, dc);
  to_host(&cnt, dc, 1);
  to_host(o, dout, cnt);
  bool ok = cnt == ref;
  for (int i = 0; i < cnt; ++i) { ok &= o[i] % 2 == 0; osum += o[i]; }
  return verdict("stream_compaction", ok && osum == rsum, osum);
}
