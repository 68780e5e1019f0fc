// Clamp-and-scale: out[i] = min(in[i], limit) * 2 for i < n.
#include <cstdio>
#include <cstdlib>

__global__ void clamp_scale(const int *in, int *out, int n, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = in[i];
    if (v > limit) v = limit;
    out[i] = v * 2;
  }
}

int main(int argc, char **argv) {
  int n = std::atoi(argv[1]), limit = std::atoi(argv[2]);
  int *h = (int *)std::malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = (i * 7) % 13;
  int *din, *dout;
  cudaMalloc(&din, (n + 64) * sizeof(int));
  cudaMemset(din, 0, (n + 64) * sizeof(int));
  cudaMalloc(&dout, (n + 64) * sizeof(int));
  cudaMemset(dout, 0, (n + 64) * sizeof(int));
  cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice);
  clamp_scale<<<(n + 63) / 64, 64>>>(din, dout, n, limit);
  int *r = (int *)std::malloc((n + 64) * sizeof(int));
  cudaMemcpy(r, dout, (n + 64) * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n + 1; ++i) std::printf("%d ", r[i]);
  std::printf("\n");
  return 0;
}
