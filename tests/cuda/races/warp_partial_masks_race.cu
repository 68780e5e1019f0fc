#include "harness.h"
// each half of the warp syncs with its own mask: a half's sync does not order the other half's
// write (lane 0's) before lane 16's read
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  if (lane == 0) s[0] = in[0];  // RACE
  __syncwarp(lane < 16 ? 0x0000ffffu : 0xffff0000u);
  if (lane == 16) out[0] = s[0];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
