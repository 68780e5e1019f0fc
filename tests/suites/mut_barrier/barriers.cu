// Two barriers: one the kernel needs (threads read a neighbour's slot), one it
// does not (each thread reads back only its own slot). Deleting the second
// cannot be noticed by any test: its mutant survives.
#include <cstdio>

__global__ void rotate(int *data) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  data[t] = s[(t + 1) % 64];
}

__global__ void twice(int *data) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  data[t] = s[t] * 2;
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *d;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  rotate<<<1, 64>>>(d);
  twice<<<1, 64>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += (long)h[i] * (i + 1);
  std::printf("%ld\n", sum);
  return 0;
}
