#include "corpus_util.h"
__global__ void reduce(const int *in, int *out, int n) {
  __shared__ int s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + t;
  int v = 0;
  if (i < n) v += in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  s[t] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
int main() {
  const int n = 100000, blocks = (n + 511) / 512;
  int *h = (int *)malloc(n * sizeof(int)), part[blocks];
  long long ref = 0;
  for (int i = 0; i < n; ++i) { h[i] = rnd() % 1000 - 500; ref += h[i]; }
  int *d = to_device(h, n), *dp;
  CK(cudaMalloc(&dp, sizeof part));
  reduce<<<blocks, 256>>>(d, dp, n);
  to_host(part, dp, blocks);
  long long sum = 0;
  for (int b = 0; b < blocks; ++b) sum += part[b];
  return verdict("reduce_shared", sum == ref, (unsigned long long)(sum + 1000000000LL));
}
