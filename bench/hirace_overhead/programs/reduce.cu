#include "bench_common.h"
__global__ void reduce(const int *in, int *out, int n) {
  __shared__ int s[256];
  int t = threadIdx.x, i = blockIdx.x * 512 + t;
  int v = (i < n ? in[i] : 0) + (i + 256 < n ? in[i + 256] : 0);
  s[t] = v;
  __syncthreads();
  for (int d = 128; d > 0; d >>= 1) {
    if (t < d) s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, s[0]);
}
int main(int argc, char **argv) {
  int n = arg_n(argc, argv, 1 << 22);
  int *h = (int *)malloc(n * sizeof(int)), *d, *o, r = 0;
  long long ref = 0;
  for (int i = 0; i < n; ++i) { h[i] = brnd() % 10; ref += h[i]; }
  cudaMalloc(&d, n * sizeof(int)); cudaMalloc(&o, sizeof(int));
  cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(o, 0, sizeof(int));
  reduce<<<(n + 511) / 512, 256>>>(d, o, n);
  cudaMemset(o, 0, sizeof(int));
  Timer t;
  reduce<<<(n + 511) / 512, 256>>>(d, o, n);
  float ms = t.stop();
  cudaMemcpy(&r, o, sizeof(int), cudaMemcpyDeviceToHost);
  printf("kernel_ms %.4f\ncheck %s\n", ms, r == ref ? "PASS" : "FAIL");
  return 0;
}
