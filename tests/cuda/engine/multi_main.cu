#include <cstdio>
#include "multi_util.cuh"
__global__ void soa_kernel(SoA s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n) store_y(s, i, load_x(s, i) + 1.0f);
}
int main() {
  const int n = 100;
  float *x, *y, hy[n];
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  float hx[n];
  for (int i = 0; i < n; ++i) hx[i] = (float)i;
  cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
  SoA s{x, y, n};
  soa_kernel<<<(n + 63) / 64, 64>>>(s);
  scale<float><<<2, 64>>>(x, y, 2.0f, n);
  scale<<<dim3(2, 1, 1), dim3(64)>>>(y, x, 0.5f, n);
  cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += hy[i];
  printf("sum %.1f\n%s\n", sum, sum == 5050.0 ? "PASS" : "FAIL");
  return 0;
}
