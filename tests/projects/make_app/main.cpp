#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "stencil.h"

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = float(i % 17);
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  stencil_step(d_in, d_out, n);
  fix_boundary(d_out, n);
  cudaMemcpy(h.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : h) sum += v;
  std::printf("stencil: sum %.2f\n", sum);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
