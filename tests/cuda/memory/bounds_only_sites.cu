// Out of bounds at sites that get only a bounds check, because they cannot race: reads of a shared
// array that nothing writes in their barrier interval, and atomics on a shared array in an interval
// where every access to it is an atomic. Many warps, blocks and launches reach them at once, at both
// ends of static and dynamic arrays. Race-free otherwise.
#include <cstdio>
__global__ void ahead(const int *in, int *out) {
  __shared__ int tile[256];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = tile[t + 4];   // line 11: threads 252-255 of each block read past the end
}
__global__ void behind(const int *in, int *out) {
  extern __shared__ int window[];
  int t = threadIdx.x;
  window[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = window[t - 3];   // line 18: threads 0-2 of each block read before the start
}
__global__ void bins(const int *in, int *out) {
  __shared__ int hist[16];
  int t = threadIdx.x;
  if (t < 16) hist[t] = 0;
  __syncthreads();
  atomicAdd(&hist[in[blockIdx.x * 256 + t] % 20], 1);   // line 25: values 16-19 land past the end
  __syncthreads();
  if (t < 16) atomicAdd(&out[t], hist[t]);
}
__global__ void several(const int *in, int *out) {   // three such sites in one launch
  __shared__ int a[32], b[32], c[32];
  int t = threadIdx.x;
  a[t] = in[t];
  b[t] = in[t];
  c[t] = in[t];
  __syncthreads();
  int v = a[t + 1];   // line 36: thread 31 reads past the end
  v += b[t + 2];      // line 37: threads 30-31
  v += c[t + 3];      // line 38: threads 29-31
  out[t] = v;
}
int main() {
  const int blocks = 8, n = blocks * 256;
  static int h[n];
  int *in, *out[3];
  for (int i = 0; i < n; ++i) h[i] = i;
  cudaMalloc(&in, n * sizeof(int));
  for (int k = 0; k < 3; ++k) cudaMalloc(&out[k], n * sizeof(int));
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(out[2], 0, n * sizeof(int));
  for (int k = 0; k < 3; ++k) ahead<<<blocks, 256>>>(in, out[0]);   // 3 launches x 8 blocks x 4 threads: 96
  behind<<<blocks, 256, 256 * sizeof(int)>>>(in, out[1]);           // 8 blocks x 3 threads: 24
  bins<<<blocks, 256>>>(in, out[2]);                                 // i % 20 in 16..19 for 408 of the 2048 values
  several<<<1, 32>>>(in, out[0]);
  long long sum[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    cudaMemcpy(h, out[k], sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < (k == 2 ? 16 : n); ++i) sum[k] += h[i];
  }
  printf("ahead %lld behind %lld bins %lld\n", sum[0], sum[1], sum[2]);
  return 0;
}
