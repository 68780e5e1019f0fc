// Shared accesses whose index lies inside their array (hirace/proofs/bounds.py): a tiled product's
// inner loop reads its tiles with no bounds test in the kernel's quiet version; halo's read of the next
// word is inside where the block is one narrower than the array: its launch of 17 threads takes the
// whole kernel, which reports the read past the array (line 30).
#include <cstdio>

template <int B> __global__ void mm(const float *a, const float *b, float *c, int n) {
  __shared__ float as[B][B];
  __shared__ float bs[B][B];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * B + ty, col = blockIdx.x * B + tx;
  float sum = 0;
  for (int t = 0; t < n / B; ++t) {
    as[ty][tx] = a[row * n + t * B + tx];
    bs[ty][tx] = b[(t * B + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < B; ++k) sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

__global__ void halo(const int *in, int *out) {
  __shared__ int s[17];
  int tx = threadIdx.x;
  if (tx == 0) s[16] = -1;
  __syncthreads();
  s[tx] = in[blockIdx.x * blockDim.x + tx];
  __syncthreads();
  out[blockIdx.x * blockDim.x + tx] = s[tx] + s[tx + 1];
}

int main() {
  const int n = 16;
  float ha[n * n], hb[n * n], hc[n * n];
  for (int i = 0; i < n * n; ++i) {
    ha[i] = float(i % 7);
    hb[i] = float(i % 5);
  }
  float *a, *b, *c;
  cudaMalloc(&a, sizeof ha);
  cudaMalloc(&b, sizeof hb);
  cudaMalloc(&c, sizeof hc);
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  mm<8><<<dim3(2, 2), dim3(8, 8)>>>(a, b, c, n);
  cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n * n; ++i) sum += hc[i];
  int hin[64], hout[64];
  for (int i = 0; i < 64; ++i) hin[i] = i;
  int *in, *out;
  cudaMalloc(&in, sizeof hin);
  cudaMalloc(&out, sizeof hout);
  cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice);
  halo<<<4, 16>>>(in, out);
  halo<<<1, 17>>>(in, out);
  cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
  long total = 0;
  for (int i = 0; i < 64; ++i) total += hout[i];
  printf("sums %.0f %ld\n", sum, total);
  return 0;
}
