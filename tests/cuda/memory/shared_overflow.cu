// Past the end of __shared__ arrays: a tile loaded one element too far (a static array next to
// another one: without bounds it would overwrite `other` and look like a race on it), and a
// dynamic shared array indexed past the launch's dynamic size. Race-free otherwise.
#include <cstdio>
__global__ void tiles(const float *in, float *out) {
  __shared__ float tile[32];
  __shared__ float other[32];
  int t = threadIdx.x;
  other[t] = 1.0f;
  tile[t + 1] = in[t];   // line 10: thread 31 writes tile[32]
  __syncthreads();
  out[blockIdx.x * 32 + t] = tile[t] + other[t];
}
__global__ void dynamic(float *out, int n) {
  extern __shared__ float buf[];
  int t = threadIdx.x;
  buf[t] = t;
  __syncthreads();
  out[t] = buf[(t + 2) % (n + 2)];   // line 19: threads 30 and 31 read buf[32], buf[33]
}
int main() {
  float *in, *out;
  cudaMalloc(&in, 32 * sizeof(float));
  cudaMalloc(&out, 64 * sizeof(float));
  cudaMemset(in, 0, 32 * sizeof(float));
  tiles<<<2, 32>>>(in, out);
  dynamic<<<1, 32, 32 * sizeof(float)>>>(out, 32);
  float h[32];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("out[0] = %g\n", h[0]);
  return 0;
}
