#include "corpus_util.h"
#define T 32
__global__ void transpose(const int *in, int *out, int w, int h) {
  __shared__ int tile[T][T + 1];
  int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  for (int j = 0; j < T; j += blockDim.y)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x; y = blockIdx.x * T + threadIdx.y;
  for (int j = 0; j < T; j += blockDim.y)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}
int main() {
  const int w = 70, h = 45;
  int in[w * h], out[w * h];
  for (int i = 0; i < w * h; ++i) in[i] = rnd() % 100000;
  int *din = to_device(in, w * h), *dout;
  CK(cudaMalloc(&dout, sizeof out));
  transpose<<<dim3((w + T - 1) / T, (h + T - 1) / T), dim3(T, 8)>>>(din, dout, w, h);
  to_host(out, dout, w * h);
  bool ok = true; unsigned long long s = 0;
  for (int y = 0; y < h; ++y) for (int x = 0; x < w; ++x) { ok &= out[x * h + y] == in[y * w + x]; s = s * 13 + out[x * h + y]; }
  return verdict("transpose_shared", ok, s);
}
