#include "bench_common.h"
// Many tiny launches while a large buffer is tracked: hirace's per-launch work must not grow with
// the tracked memory. The argument is the big buffer's size in ints; 1,000 launches of one block
// touch its first 256.
__global__ void bump(int *a) {
  __shared__ int s[256];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[255 - threadIdx.x] + 1;
}
int main(int argc, char **argv) {
  long long n = arg_n(argc, argv, 1 << 20);
  int *d, h[256];
  if (cudaMalloc(&d, size_t(n) * sizeof(int)) != cudaSuccess) { printf("check FAIL (no memory)\n"); return 1; }
  cudaMemset(d, 0, 256 * sizeof(int));
  bump<<<1, 256>>>(d);
  Timer t;
  for (int i = 0; i < 1000; ++i) bump<<<1, 256>>>(d);
  float ms = t.stop();
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < 256; ++i) ok = ok && h[i] == 1001;
  printf("kernel_ms %.4f\ncheck %s\n", ms, ok ? "PASS" : "FAIL");
  return 0;
}
