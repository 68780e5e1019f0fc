#include "corpus_util.h"
__device__ int warp_sum(int v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}
__global__ void reduce(const int *in, int *out, int n) {
  __shared__ int warps[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  v = warp_sum(v);
  int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  if (lane == 0) warps[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < blockDim.x / 32 ? warps[lane] : 0;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}
int main() {
  const int n = 70000;
  int *h = (int *)malloc(n * sizeof(int));
  long long ref = 0;
  for (int i = 0; i < n; ++i) { h[i] = rnd() % 100; ref += h[i]; }
  int *d = to_device(h, n), *dout, out = 0;
  CK(cudaMalloc(&dout, sizeof(int)));
  CK(cudaMemset(dout, 0, sizeof(int)));
  reduce<<<(n + 255) / 256, 256>>>(d, dout, n);
  to_host(&out, dout, 1);
  return verdict("reduce_warp_shuffle", out == ref, out);
}
