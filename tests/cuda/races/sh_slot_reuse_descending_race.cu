#include "harness.h"
// As sh_slot_reuse_descending_ok.cu without the barrier: within each block the reads race with the
// other threads' writes, in both shared arrays, in every block of the slot.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int a[64];
  extern __shared__ int s[];
  int t = threadIdx.x;
  a[63 - t] = in[t];  // RACE
  s[63 - t] = in[t] + 1;  // RACE
  out[blockIdx.x * 64 + t] = a[t] + s[(t + 1) % 64];  // RACE
}
int main() {
  Bufs b = setup();
  k<<<4, 64, 64 * sizeof(int)>>>(b.in, b.out, b.n);
  return finish(b);
}
