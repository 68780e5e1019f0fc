#include "bench_common.h"
#define TILE 16
__global__ void matmul(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < n / TILE; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}
int main(int argc, char **argv) {
  int n = arg_n(argc, argv, 512);
  size_t bytes = size_t(n) * n * sizeof(float);
  float *h = (float *)malloc(bytes), *A, *B, *C;
  for (size_t i = 0; i < size_t(n) * n; ++i) h[i] = (brnd() % 8) * 0.25f;
  cudaMalloc(&A, bytes); cudaMalloc(&B, bytes); cudaMalloc(&C, bytes);
  cudaMemcpy(A, h, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(B, h, bytes, cudaMemcpyHostToDevice);
  dim3 g(n / TILE, n / TILE), b(TILE, TILE);
  matmul<<<g, b>>>(A, B, C, n);
  Timer t;
  matmul<<<g, b>>>(A, B, C, n);
  float ms = t.stop();
  float c0;
  cudaMemcpy(&c0, C, sizeof c0, cudaMemcpyDeviceToHost);
  float r = 0;
  for (int k = 0; k < n; ++k) r += h[k] * h[k * n];
  printf("kernel_ms %.4f\ncheck %s\n", ms, c0 == r ? "PASS" : "FAIL");
  return 0;
}
