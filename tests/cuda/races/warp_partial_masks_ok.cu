#include "harness.h"
// a warp's reduction whose steps sync only the lanes still at work: each half-mask sync orders
// the writes its lanes read next; the whole-warp sync first orders every lane's write
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  s[lane] = in[lane];
  __syncwarp();
  for (unsigned half = 16; half > 0; half /= 2) {
    if (lane < half) s[lane] += s[lane + half];
    unsigned mask = half > 1 ? (1u << half) - 1 : 1u;
    if (lane < half) __syncwarp(mask);
  }
  if (lane == 0) out[0] = s[0];
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
