#include "corpus_util.h"
__global__ void allreduce(const int *in, int *sum_out, int *bcast_out, int *up_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, v = in[i];
  int s = v;
  for (int m = 16; m > 0; m >>= 1) s += __shfl_xor_sync(0xffffffffu, s, m);
  sum_out[i] = s;
  bcast_out[i] = __shfl_sync(0xffffffffu, v, 5);
  up_out[i] = __shfl_up_sync(0xffffffffu, v, 3);
}
int main() {
  const int n = 128;
  int h[n], s[n], b[n], u[n];
  for (int i = 0; i < n; ++i) h[i] = rnd() % 1000;
  int *d = to_device(h, n), *ds, *db, *du;
  CK(cudaMalloc(&ds, sizeof s)); CK(cudaMalloc(&db, sizeof b)); CK(cudaMalloc(&du, sizeof u));
  allreduce<<<2, 64>>>(d, ds, db, du);
  to_host(s, ds, n); to_host(b, db, n); to_host(u, du, n);
  bool ok = true; unsigned long long c = 0;
  for (int i = 0; i < n; ++i) {
    int w = i / 32 * 32, sum = 0;
    for (int l = 0; l < 32; ++l) sum += h[w + l];
    int lane = i % 32;
    ok &= s[i] == sum && b[i] == h[w + 5] && u[i] == (lane >= 3 ? h[i - 3] : h[i]);
    c = c * 3 + s[i] + b[i] + u[i];
  }
  return verdict("shuffle_xor_broadcast", ok, c);
}
