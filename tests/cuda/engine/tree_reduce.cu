// Tree reductions in shared memory (instrument/tree_forms.py). In `sum`, each pass's threads below d
// add the word d above their own into their own, so no two threads meet, and hirace checks only the
// bounds of s[t + d] (a 256-thread block fits s). `sum` launched with a 128 x 2 block: threads
// (t, 0) and (t, 1) share s[t], a read-write race at line 14 that hirace must report.
// `off_by_one` lets thread d write s[d] while thread 0 reads it: a read-write race at line 27.
#include <cstdio>

__global__ void sum(const int *in, int *out) {
  __shared__ int s[256];
  unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
  if (threadIdx.y == 0) s[threadIdx.x] = in[t];
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
    if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[threadIdx.y] = s[0];
}

__global__ void off_by_one(const int *in, int *out) {
  __shared__ int s[257];
  int t = threadIdx.x;
  s[t] = in[t];
  if (t == 0) s[256] = 0;
  __syncthreads();
  for (int d = 128; d > 0; d >>= 1) {
    if (t <= d) s[t] = s[t] + s[t + d];
    __syncthreads();
  }
  if (t == 0) out[0] = s[0];
}

int main() {
  int *in, *out, h[2];
  cudaMalloc(&in, 256 * sizeof(int));
  cudaMalloc(&out, 2 * sizeof(int));
  int ones[256];
  for (int i = 0; i < 256; ++i) ones[i] = 1;
  cudaMemcpy(in, ones, sizeof ones, cudaMemcpyHostToDevice);
  sum<<<1, 256>>>(in, out);
  cudaMemcpy(h, out, sizeof(int), cudaMemcpyDeviceToHost);
  printf("sum %d\n", h[0]);
  sum<<<1, dim3(128, 2)>>>(in, out);
  off_by_one<<<1, 256>>>(in, out);
  cudaDeviceSynchronize();
  cudaFree(in);
  cudaFree(out);
  printf("done\n");
  return 0;
}
