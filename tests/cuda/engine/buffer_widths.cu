// The shadow's granularity per buffer (hirace/buffer_widths.py, runtime hirace/host_granularity.h):
// `cost` (int) keeps 4-byte words beside `mask` (bool, one byte each); `bytes` is an int buffer until
// `spread` writes each of its bytes through an unsigned char parameter; the template `zero` writes the
// elements of its argument's type (`far`: ints, `chars`: bytes); with an argument, `poke` writes
// the bytes of `other` through a pointer it made, which makes every buffer byte-grained. Threads write
// neighbouring bytes: no race unless a buffer's words were too wide. The one race: two threads of
// `relax` write cost[0] (line 14).
#include <cstdio>

__global__ void relax(const bool *mask, int *cost, bool *seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && mask[i]) {
    seen[i] = true;
    if (i < 2) cost[0] = i;
    else cost[i] = i;
  }
}

__global__ void fill(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i;
}

__global__ void spread(unsigned char *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = (unsigned char)(i & 0x7f);
}

template <class T> __global__ void zero(T *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = T(0);
}

__global__ void poke(int *a, int n) {
  unsigned char *b = (unsigned char *)a;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 1;
}

int main(int argc, char **) {
  const int n = 64;
  bool *mask, *seen;
  int *cost, *bytes, *other, *far, *chars;
  cudaMalloc(&mask, n);
  cudaMalloc(&seen, n);
  cudaMalloc(&cost, n * sizeof(int));
  cudaMalloc(&bytes, n * sizeof(int));
  cudaMalloc(&other, n * sizeof(int));
  cudaMalloc(&far, n * sizeof(int));
  cudaMalloc(&chars, n * sizeof(int));
  cudaMemset(mask, 1, n);
  relax<<<2, 32>>>(mask, cost, seen, n);
  fill<<<2, 32>>>(bytes, n);
  fill<<<2, 32>>>(far, n);
  zero<int><<<2, 32>>>(far, n);
  zero<unsigned char><<<4, 32>>>((unsigned char *)chars, 4 * n);
  spread<<<4, 32>>>((unsigned char *)bytes, 4 * n);
  fill<<<2, 32>>>(other, n);
  if (argc > 1) poke<<<4, 32>>>(other, 4 * n);
  int h[n], g[n];
  cudaMemcpy(h, bytes, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(g, other, sizeof g, cudaMemcpyDeviceToHost);
  printf("%08x %08x %08x\n", h[0], h[63], g[5]);
  return 0;
}
