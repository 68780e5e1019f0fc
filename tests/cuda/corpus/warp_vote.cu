#include "corpus_util.h"
__global__ void vote(const int *v, int *pos_count, int *any_neg, int *all_small) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, w = i / 32;
  unsigned m = __ballot_sync(0xffffffffu, v[i] > 0);
  int a = __any_sync(0xffffffffu, v[i] < 0), b = __all_sync(0xffffffffu, v[i] < 100);
  if (threadIdx.x % 32 == 0) { pos_count[w] = __popc(m); any_neg[w] = a; all_small[w] = b; }
}
int main() {
  const int n = 256, nw = n / 32;
  int h[n], pc[nw], an[nw], as[nw];
  for (int i = 0; i < n; ++i) h[i] = (i / 32 == 3) ? (int)(rnd() % 50) : (int)(rnd() % 150) - 20;
  int *d = to_device(h, n), *dp, *da, *ds;
  CK(cudaMalloc(&dp, sizeof pc)); CK(cudaMalloc(&da, sizeof an)); CK(cudaMalloc(&ds, sizeof as));
  vote<<<2, 128>>>(d, dp, da, ds);
  to_host(pc, dp, nw); to_host(an, da, nw); to_host(as, ds, nw);
  bool ok = true; unsigned long long s = 0;
  for (int w = 0; w < nw; ++w) {
    int p = 0, neg = 0, small = 1;
    for (int l = 0; l < 32; ++l) { int x = h[w * 32 + l]; p += x > 0; neg |= x < 0; small &= x < 100; }
    ok &= pc[w] == p && an[w] == neg && as[w] == small;
    s = s * 97 + pc[w] * 4 + an[w] * 2 + as[w];
  }
  return verdict("warp_vote", ok, s);
}
