#include "corpus_util.h"
__global__ void hist(const unsigned *data, int n, unsigned *bins, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i] % nbins], 1u);
}
int main() {
  const int n = 20000, nb = 37;
  unsigned *h = (unsigned *)malloc(n * sizeof(unsigned)), bins[nb], ref[nb] = {0};
  for (int i = 0; i < n; ++i) { h[i] = rnd(); ref[h[i] % nb]++; }
  unsigned *d = to_device(h, n), *db;
  CK(cudaMalloc(&db, sizeof bins));
  CK(cudaMemset(db, 0, sizeof bins));
  hist<<<16, 128>>>(d, n, db, nb);
  to_host(bins, db, nb);
  bool ok = true; unsigned long long s = 0;
  for (int b = 0; b < nb; ++b) { ok &= bins[b] == ref[b]; s = s * 31 + bins[b]; }
  return verdict("histogram_global_atomics", ok, s);
}
