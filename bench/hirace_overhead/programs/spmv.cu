#include "bench_common.h"
__global__ void spmv(const int *row, const int *col, const float *val, const float *x, float *y, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float acc = 0;
    for (int e = row[r]; e < row[r + 1]; ++e) acc += val[e] * x[col[e]];
    y[r] = acc;
  }
}
int main(int argc, char **argv) {
  int n = arg_n(argc, argv, 1 << 18), deg = 16, m = n * deg;
  int *hr = (int *)malloc((n + 1) * 4), *hc = (int *)malloc(m * 4);
  float *hv = (float *)malloc(m * 4), *hx = (float *)malloc(n * 4);
  for (int i = 0; i <= n; ++i) hr[i] = i * deg;
  for (int e = 0; e < m; ++e) { hc[e] = brnd() % n; hv[e] = (brnd() % 4) * 0.5f; }
  for (int i = 0; i < n; ++i) hx[i] = float(brnd() % 3);
  int *row, *col; float *val, *x, *y, y0;
  cudaMalloc(&row, (n + 1) * 4); cudaMalloc(&col, m * 4); cudaMalloc(&val, m * 4);
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
  cudaMemcpy(row, hr, (n + 1) * 4, cudaMemcpyHostToDevice); cudaMemcpy(col, hc, m * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(val, hv, m * 4, cudaMemcpyHostToDevice); cudaMemcpy(x, hx, n * 4, cudaMemcpyHostToDevice);
  spmv<<<(n + 255) / 256, 256>>>(row, col, val, x, y, n);
  Timer t;
  spmv<<<(n + 255) / 256, 256>>>(row, col, val, x, y, n);
  float ms = t.stop();
  cudaMemcpy(&y0, y, 4, cudaMemcpyDeviceToHost);
  float r = 0;
  for (int e = 0; e < deg; ++e) r += hv[e] * hx[hc[e]];
  printf("kernel_ms %.4f\ncheck %s\n", ms, y0 == r ? "PASS" : "FAIL");
  return 0;
}
