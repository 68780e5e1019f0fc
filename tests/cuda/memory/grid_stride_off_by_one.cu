// A grid-stride loop that runs to i <= n: the last element written is one past the end.
#include <cstdio>
__global__ void scale(float *v, int n, float f) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += gridDim.x * blockDim.x)
    v[i] = v[i] * f;   // line 5
}
int main() {
  const int n = 1000;
  float *v;
  cudaMalloc(&v, n * sizeof(float));
  cudaMemset(v, 0, n * sizeof(float));
  scale<<<4, 64>>>(v, n, 2.0f);
  float h;
  cudaMemcpy(&h, v, sizeof h, cudaMemcpyDeviceToHost);
  printf("v[0] = %g\n", h);
  return 0;
}
