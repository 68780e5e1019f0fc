#include "harness.h"
// The single-pass scan with decoupled look-back whose inclusive prefix is published without a fence
// before its flag: a successor that sees flag 2 reads the prefix unordered with its write, a race.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[64];
  __shared__ int prefix;
  int *flag = &out[0], *agg = &out[32], *incl = &out[64], *res = &out[256];
  int t = threadIdx.x, tile = blockIdx.x;
  s[t] = in[tile * 64 + t];
  __syncthreads();
  for (int d = 1; d < 64; d <<= 1) {
    int v = t >= d ? s[t - d] : 0;
    __syncthreads();
    s[t] += v;
    __syncthreads();
  }
  if (t == 0) {
    int total = s[63], run = 0;
    if (tile > 0) {
      agg[tile] = total;
      __threadfence();
      atomicExch(&flag[tile], 1);
      for (int p = tile - 1; p >= 0; --p) {
        int f;
        while ((f = atomicAdd(&flag[p], 0)) == 0) {}
        __threadfence();
        if (f == 2) {
          run += incl[p];  // RACE
          break;
        }
        run += agg[p];
      }
    }
    incl[tile] = run + total;  // RACE
    atomicExch(&flag[tile], 2);
    prefix = run;
  }
  __syncthreads();
  res[tile * 64 + t] = s[t] + prefix;
}
int main() {
  Bufs b = setup();
  k<<<8, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
