// Multi-file program: main.cu launches through a wrapper defined in kernels.cu.
#include "../corpus_util.h"
#include "shared_defs.cuh"
__global__ void negate(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = -v[i];
}
int main() {
  const int n = 250;
  int h[n], o[n];
  for (int i = 0; i < n; ++i) h[i] = rnd() % 100;
  int *din = to_device(h, n), *dout;
  CK(cudaMalloc(&dout, sizeof o));
  launch_square_plus(din, dout, n);
  negate<<<4, 64>>>(dout, n);
  to_host(o, dout, n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) { ok &= o[i] == -(square(h[i]) + OFFSET); s = s * 3 + (unsigned)(-o[i]); }
  return verdict("multi_file", ok, s);
}
