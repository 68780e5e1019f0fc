#include "corpus_util.h"
template <typename T, int BLOCK>
__global__ void block_sum(const T *in, T *out, int n) {
  __shared__ T s[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
template <typename T> T run(const T *h, int n) {
  const int B = 128, nb = (n + B - 1) / B;
  T *d = to_device(h, n), *dout, part[64];
  CK(cudaMalloc(&dout, nb * sizeof(T)));
  block_sum<T, B><<<nb, B>>>(d, dout, n);
  to_host(part, dout, nb);
  T s = 0;
  for (int b = 0; b < nb; ++b) s += part[b];
  return s;
}
int main() {
  const int n = 2000;
  int hi[n]; double hd[n]; long long ri = 0; double rd = 0;
  for (int i = 0; i < n; ++i) { hi[i] = rnd() % 100; hd[i] = hi[i] * 0.5; ri += hi[i]; rd += hd[i]; }
  int si = run(hi, n);
  double sd = run(hd, n);
  return verdict("template_reduce", si == ri && sd == rd, (unsigned long long)si * 1000 + (unsigned long long)sd);
}
