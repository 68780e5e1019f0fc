#include "harness.h"
// The write and the read are in different launches: ordered by the stream.
__global__ void k(const int *in, int *out, int n) {
  out[blockIdx.x * 64 + threadIdx.x] = in[threadIdx.x];
}
__global__ void k2(const int *in, int *out, int n) {
  out[2048 + threadIdx.x] = out[threadIdx.x] + out[(threadIdx.x + 1) % 128];
}
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  k2<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
