// Blocks that wait for other blocks (persistent-kernel style): they must interleave to finish.
#include <cstdio>
// each block waits until the previous block has published its value: needs blocks to interleave
__global__ void chain(volatile int *flag, int *out) {
  int b = blockIdx.x;
  if (threadIdx.x == 0) {
    if (b > 0) while (atomicAdd((int *)&flag[b - 1], 0) == 0) {}
    out[b] = (b > 0 ? out[b - 1] : 0) + b;
    __threadfence();
    atomicExch((int *)&flag[b], 1);
  }
  __syncthreads();
}
// the reverse order: block 0 waits for the last block (which starts last)
__global__ void last_first(int *flag, int *out) {
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) { while (atomicCAS(&flag[0], 1, 1) == 0) {} out[0] = 7; }
    if (blockIdx.x == gridDim.x - 1) atomicExch(&flag[0], 1);
  }
}
int main() {
  int *flag, *out; cudaMallocManaged(&flag, 64 * 4); cudaMallocManaged(&out, 64 * 4);
  for (int i = 0; i < 64; ++i) flag[i] = out[i] = 0;
  chain<<<16, 64>>>(flag, out); cudaDeviceSynchronize();
  printf("%d\n", out[15]);
  for (int i = 0; i < 64; ++i) flag[i] = 0;
  last_first<<<8, 32>>>(flag, out); cudaDeviceSynchronize();
  printf("%d\n", out[0]);
}
