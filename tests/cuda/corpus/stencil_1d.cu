#include "corpus_util.h"
#define R 3
#define B 128
__global__ void stencil(const int *in, int *out, int n) {
  __shared__ int tmp[B + 2 * R];
  int g = blockIdx.x * B + threadIdx.x, l = threadIdx.x + R;
  tmp[l] = g < n ? in[g] : 0;
  if (threadIdx.x < R) {
    tmp[l - R] = g - R >= 0 && g - R < n ? in[g - R] : 0;
    tmp[l + B] = g + B < n ? in[g + B] : 0;
  }
  __syncthreads();
  int r = 0;
  for (int o = -R; o <= R; ++o) r += tmp[l + o];
  if (g < n) out[g] = r;
}
int main() {
  const int n = 1000;
  int in[n], out[n];
  for (int i = 0; i < n; ++i) in[i] = rnd() % 50;
  int *din = to_device(in, n), *dout;
  CK(cudaMalloc(&dout, sizeof out));
  stencil<<<(n + B - 1) / B, B>>>(din, dout, n);
  to_host(out, dout, n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) {
    int r = 0;
    for (int o = -R; o <= R; ++o) if (i + o >= 0 && i + o < n) r += in[i + o];
    ok &= out[i] == r; s = s * 17 + out[i];
  }
  return verdict("stencil_1d", ok, s);
}
