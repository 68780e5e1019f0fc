#include "corpus_util.h"
// Work-efficient exclusive scan (up-sweep, down-sweep) per block of 2*256 elements, then block sums added.
__global__ void scan_blocks(int *data, int *sums) {
  __shared__ int s[512];
  int t = threadIdx.x, base = blockIdx.x * 512;
  s[2 * t] = data[base + 2 * t];
  s[2 * t + 1] = data[base + 2 * t + 1];
  int off = 1;
  for (int d = 256; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) s[off * (2 * t + 2) - 1] += s[off * (2 * t + 1) - 1];
    off <<= 1;
  }
  if (t == 0) { sums[blockIdx.x] = s[511]; s[511] = 0; }
  for (int d = 1; d < 512; d <<= 1) {
    off >>= 1;
    __syncthreads();
    if (t < d) {
      int a = off * (2 * t + 1) - 1, b = off * (2 * t + 2) - 1;
      int x = s[a]; s[a] = s[b]; s[b] += x;
    }
  }
  __syncthreads();
  data[base + 2 * t] = s[2 * t];
  data[base + 2 * t + 1] = s[2 * t + 1];
}
__global__ void add_offsets(int *data, const int *offsets) {
  data[blockIdx.x * 512 + threadIdx.x] += offsets[blockIdx.x];
}
int main() {
  const int blocks = 8, n = blocks * 512;
  int h[n], r[n], sums[blocks], offs[blocks];
  for (int i = 0; i < n; ++i) { h[i] = rnd() % 5; r[i] = i ? r[i - 1] + h[i - 1] : 0; }
  int *d = to_device(h, n), *ds, *doffs;
  CK(cudaMalloc(&ds, sizeof sums));
  scan_blocks<<<blocks, 256>>>(d, ds);
  to_host(sums, ds, blocks);
  for (int b = 0, acc = 0; b < blocks; ++b) { offs[b] = acc; acc += sums[b]; }
  doffs = to_device(offs, blocks);
  add_offsets<<<blocks, 512>>>(d, doffs);
  to_host(h, d, n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < n; ++i) { ok &= h[i] == r[i]; s = s * 3 + h[i]; }
  return verdict("scan_blelloch", ok, s);
}
