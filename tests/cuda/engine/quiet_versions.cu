// Kernels for hirace's quiet versions (hirace/proofs/quiet_version.py): `tile` and `taps` have only quiet
// sites (a shared tile written at each thread's own word, read-only and own parameters, a loop of a
// fixed count) and get a version, as does `racy` (its index, 0, is an own form that the host test
// refuses); `rows` loops a count the data decides: none. `taps` reads one word before its input (out of bounds in every
// launch): the version notes and diverts it as the check does.
#include <cstdio>
#define W 16
#define R 2
__global__ void tile(const float *in, float *out, int cols) {
  __shared__ float t[W][W];
  int x = blockIdx.x * W + threadIdx.x, y = blockIdx.y * W + threadIdx.y;
  t[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  out[y * cols + x] = t[threadIdx.x][threadIdx.y] + t[threadIdx.y][threadIdx.x];
}
__global__ void taps(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int o = -R; o <= R; ++o) acc += in[i + o + R - (i == 0 ? 3 : 0)];
  out[i] = acc;
}
__global__ void rows(const int *start, const float *v, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int e = start[r]; e < start[r + 1]; ++e) acc += v[e];
  out[r] = acc;
}
__global__ void racy(float *out) { out[0] = threadIdx.x; }
int main() {
  const int cols = 64, n = cols * cols;
  float *in, *out, *v;
  int *start, hs[65];
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&v, n * sizeof(float));
  cudaMalloc(&start, sizeof hs);
  for (int i = 0; i <= 64; ++i) hs[i] = i * 4;
  cudaMemcpy(start, hs, sizeof hs, cudaMemcpyHostToDevice);
  cudaMemset(in, 0, n * sizeof(float));
  cudaMemset(v, 0, n * sizeof(float));
  dim3 grid(cols / W, cols / W), block(W, W);
  tile<<<grid, block>>>(in, out, cols);
  taps<<<n / 256 - 1, 256>>>(in, out);
  rows<<<1, 64>>>(start, v, out);
  racy<<<1, 32>>>(out);
  float h = 1;
  cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("out %g\n", h);
  return 0;
}
