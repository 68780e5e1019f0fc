// A kernel whose every site is quiet (hirace/quiet_version.py) and whose thread 0 reads before the
// start of `in` at five sites: its quiet version notes four of them in the thread's journal and
// counts the fifth as a dropped record; the kernel itself names all five.
#include <cstdio>
__global__ void five(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int d = i == 0 ? 64 : 0;
  float a = in[i - d];
  float b = in[i + 1 - d];
  float c = in[i + 2 - d];
  float e = in[i + 3 - d];
  float f = in[i + 4 - d];
  out[i] = a + b + c + e + f;
}
int main() {
  const int n = 256;
  float *in, *out;
  cudaMalloc(&in, (n + 4) * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, (n + 4) * sizeof(float));
  five<<<n / 64, 64>>>(in, out);
  float h = 1;
  cudaMemcpy(&h, out + 1, sizeof h, cudaMemcpyDeviceToHost);
  printf("out %g\n", h);
  return 0;
}
