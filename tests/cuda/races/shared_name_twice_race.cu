#include "harness.h"
// two kernels of one unit declare a shared array of one name, one of them extern: the static one's
// neighbours still race on a word (each kernel's accesses name its own array)
__global__ void dyn(const int *in, int *out, int n) {
  extern __shared__ int s[];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
__global__ void fixed(const int *in, int *out, int n) {
  __shared__ int s[32][2];
  s[threadIdx.x / 2][threadIdx.y] = in[threadIdx.x] + 1;  // RACE
  __syncthreads();
  out[64 + threadIdx.y * 32 + threadIdx.x] = s[31 - threadIdx.x][threadIdx.y];
}
int main() {
  Bufs b = setup();
  dyn<<<1, 64, 64 * sizeof(int)>>>(b.in, b.out, b.n);
  fixed<<<1, dim3(32, 2)>>>(b.in, b.out, b.n);
  return finish(b);
}
