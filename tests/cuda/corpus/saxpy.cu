#include "corpus_util.h"
__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}
int main() {
  const int n = 5000;
  float x[n], y[n], r[n];
  for (int i = 0; i < n; ++i) { x[i] = (rnd() % 100) / 8.0f; y[i] = (rnd() % 100) / 4.0f; r[i] = 2.5f * x[i] + y[i]; }
  float *dx = to_device(x, n), *dy = to_device(y, n);
  saxpy<<<4, 256>>>(n, 2.5f, dx, dy);
  to_host(y, dy, n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) { ok &= std::fabs(y[i] - r[i]) < 1e-3f; s += (unsigned long long)(y[i] * 8); }
  return verdict("saxpy", ok, s);
}
