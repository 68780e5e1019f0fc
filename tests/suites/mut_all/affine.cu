// A kernel whose one test is strong enough to kill every mutant.
#include <cstdio>

__global__ void affine(const int *in, int *out) {
  int i = threadIdx.x;
  out[i] = in[i] * 3 - 5;
}

int main() {
  const int n = 8;
  int h[n], r[n];
  for (int i = 0; i < n; ++i) { h[i] = i + 2; r[i] = 7; }
  int *din, *dout;
  cudaMalloc(&din, 2 * n * sizeof(int));
  cudaMalloc(&dout, 2 * n * sizeof(int));
  cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(dout, r, sizeof r, cudaMemcpyHostToDevice);
  affine<<<1, n>>>(din, dout + 1);
  cudaMemcpy(r, dout + 1, sizeof r, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) std::printf("%d ", r[i]);
  std::printf("\n");
  return 0;
}
