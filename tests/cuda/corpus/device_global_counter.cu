#include "corpus_util.h"
__device__ unsigned long long total;
__device__ int hits[4];
__global__ void count(const int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { atomicAdd(&total, (unsigned long long)v[i]); atomicAdd(&hits[v[i] % 4], 1); }
}
int main() {
  const int n = 3000;
  int h[n], hh[4] = {0, 0, 0, 0}, got[4];
  unsigned long long ref = 0, t = 0;
  for (int i = 0; i < n; ++i) { h[i] = rnd() % 1000; ref += h[i]; hh[h[i] % 4]++; }
  int *d = to_device(h, n);
  int zero[4] = {0, 0, 0, 0};
  CK(cudaMemcpyToSymbol(total, &t, sizeof t));
  CK(cudaMemcpyToSymbol(hits, zero, sizeof zero));
  count<<<(n + 255) / 256, 256>>>(d, n);
  CK(cudaMemcpyFromSymbol(&t, total, sizeof t));
  CK(cudaMemcpyFromSymbol(got, hits, sizeof got));
  bool ok = t == ref;
  for (int k = 0; k < 4; ++k) ok &= got[k] == hh[k];
  return verdict("device_global_counter", ok, t);
}
