// A racy program with an out-of-bounds bug: a shared-memory sum whose threads add to one
// counter without atomics (the race) and whose last block reads past the input (no guard).
#include <cstdio>
__global__ void sum(const int *in, int *total) {
  __shared__ int acc;
  if (threadIdx.x == 0) acc = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  acc += in[i];                       // line 9: the race on acc; in[i] past the end in block 1
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(total, acc);
}
int main() {
  const int n = 48;
  int *in, *total;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&total, sizeof(int));
  cudaMemset(in, 0, n * sizeof(int));
  cudaMemset(total, 0, sizeof(int));
  sum<<<2, 32>>>(in, total);
  int h;
  cudaMemcpy(&h, total, sizeof h, cudaMemcpyDeviceToHost);
  printf("total = %d\n", h);
  return 0;
}
