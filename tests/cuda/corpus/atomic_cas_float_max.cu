#include "corpus_util.h"
__device__ float atomic_max_float(float *addr, float v) {
  int *ai = (int *)addr;
  int old = *ai, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(ai, assumed, __float_as_int(v));
  } while (assumed != old);
  return __int_as_float(old);
}
__global__ void maxk(const float *v, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(out, v[i]);
}
int main() {
  const int n = 4000;
  float *h = (float *)malloc(n * sizeof(float)), ref = -1e30f, out = -1e30f;
  for (int i = 0; i < n; ++i) { h[i] = (rnd() % 100000) / 7.0f; ref = h[i] > ref ? h[i] : ref; }
  float *d = to_device(h, n), *dout = to_device(&out, 1);
  maxk<<<(n + 255) / 256, 256>>>(d, n, dout);
  to_host(&out, dout, 1);
  return verdict("atomic_cas_float_max", out == ref, (unsigned long long)(out * 7));
}
