#include "harness.h"
// two kernels of one unit declare a shared array of one name, one of them extern: each kernel's accesses
// name its own array (hirace/proofs/intervals.py array_named), and each thread writes its own word
__global__ void dyn(const int *in, int *out, int n) {
  extern __shared__ int s[];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
__global__ void fixed(const int *in, int *out, int n) {
  __shared__ int s[32][2];
  s[threadIdx.x][threadIdx.y] = in[threadIdx.x] + 1;
  __syncthreads();
  out[64 + threadIdx.y * 32 + threadIdx.x] = s[31 - threadIdx.x][threadIdx.y];
}
int main() {
  Bufs b = setup();
  dyn<<<1, 64, 64 * sizeof(int)>>>(b.in, b.out, b.n);
  fixed<<<1, dim3(32, 2)>>>(b.in, b.out, b.n);
  return finish(b);
}
