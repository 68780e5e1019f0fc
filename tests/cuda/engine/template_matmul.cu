// A tiled matrix product whose tile is a template argument (hirace/proofs/quiet_version.py: a kernel
// template gets a quiet version, launched with the launch's template arguments). `mm` has only quiet
// sites where the block is the tile (own shared words, read-only a and b, c at each thread's own
// element: its index names T); its tile loop runs a fixed count (N / T). `skew` steps its blocks by
// half a tile, so neighbouring blocks write one element of c: its own-index test fails on the host
// and the launch runs the checked kernel, which reports the write-write race.
#include <cstdio>
#define N 32

template <int T> __global__ void mm(float *c, const float *a, const float *b, int n) {
  __shared__ float sa[T][T];
  __shared__ float sb[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0;
  for (int k0 = 0; k0 < N; k0 += T) {
    sa[ty][tx] = a[row * n + k0 + tx];
    sb[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += sa[ty][k] * sb[k][tx];
    __syncthreads();
  }
  c[n * T * blockIdx.y + T * blockIdx.x + n * ty + tx] = acc;
}

template <int T> __global__ void skew(float *c, const float *a, int n) {
  int i = (blockIdx.y * T + threadIdx.y) * n + blockIdx.x * (T / 2) + threadIdx.x;
  c[i] = a[i];
}

int main() {
  float ha[N * N], hb[N * N], hc[N * N];
  for (int i = 0; i < N * N; ++i) {
    ha[i] = (float)(i % 7);
    hb[i] = (float)(i % 5);
  }
  float *a, *b, *c;
  int n = N;
  cudaMalloc(&a, sizeof ha);
  cudaMalloc(&b, sizeof hb);
  cudaMalloc(&c, sizeof hc);
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  mm<16><<<dim3(N / 16, N / 16), dim3(16, 16)>>>(c, a, b, n);
  cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
  float s16 = 0;
  for (int i = 0; i < N * N; ++i) s16 += hc[i];
  mm<8><<<dim3(N / 8, N / 8), dim3(8, 8)>>>(c, a, b, n);
  cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
  float s8 = 0;
  for (int i = 0; i < N * N; ++i) s8 += hc[i];
  skew<8><<<dim3(2, N / 8), dim3(8, 8)>>>(c, a, n);
  cudaDeviceSynchronize();
  printf("sums %g %g\n", s16, s8);
  return 0;
}
