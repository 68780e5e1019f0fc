#include "harness.h"
// Hillis-Steele scan in place: reads of s[t - d] race with their writers.
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  for (int d = 1; d < 64; d <<= 1) {
    if (t >= d) s[t] += s[t - d];  // RACE
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = s[t];
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
