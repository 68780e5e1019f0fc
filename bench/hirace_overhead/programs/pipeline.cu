#include "bench_common.h"
// Many launches and copies on two streams (the stream relation's cost, `--gpu-streams`): 200 rounds, each
// uploading a chunk of pinned host memory, scaling it in a kernel and copying it back, alternately on two
// streams, synchronised once at the end. The argument is the chunk's size in ints.
__global__ void scale(int *a, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= k;
}
int main(int argc, char **argv) {
  const int n = arg_n(argc, argv, 1 << 16), rounds = 200;
  int *h, *d[2];
  cudaMallocHost(&h, size_t(rounds) * n * sizeof(int));
  cudaMalloc(&d[0], n * sizeof(int));
  cudaMalloc(&d[1], n * sizeof(int));
  for (long long i = 0; i < 1ll * rounds * n; ++i) h[i] = int(i % 1000);
  cudaStream_t s[2];
  cudaStreamCreate(&s[0]);
  cudaStreamCreate(&s[1]);
  Timer t;
  for (int r = 0; r < rounds; ++r) {
    int *chunk = h + size_t(r) * n, *dev = d[r % 2];
    cudaStream_t st = s[r % 2];
    cudaMemcpyAsync(dev, chunk, n * sizeof(int), cudaMemcpyHostToDevice, st);
    scale<<<(n + 255) / 256, 256, 0, st>>>(dev, n, 3);
    cudaMemcpyAsync(chunk, dev, n * sizeof(int), cudaMemcpyDeviceToHost, st);
  }
  float ms = t.stop();
  cudaDeviceSynchronize();
  bool ok = true;
  for (long long i = 0; i < 1ll * rounds * n && ok; ++i) ok = h[i] == int(i % 1000) * 3;
  printf("kernel_ms %.4f\ncheck %s\n", ms, ok ? "PASS" : "FAIL");
  cudaStreamDestroy(s[0]);
  cudaStreamDestroy(s[1]);
  cudaFree(d[0]);
  cudaFree(d[1]);
  cudaFreeHost(h);
  return 0;
}
