// Each thread writes t[threadIdx.y][threadIdx.x] before the barrier, and reads it after: in the first
// interval no thread reads t, so the write is each thread's own word when the block fits the array
// (8 x 4 here) and hirace does not check it (instrument/intervals.py). The second launch's block is
// 16 x 2: thread (8, 0) and thread (0, 1) write the same word t[1][0], a race hirace must report.
#include <cstdio>

__global__ void fill(int *out) {
  __shared__ int t[4][8];
  int tx = threadIdx.x;
  t[threadIdx.y][tx] = tx;
  __syncthreads();
  out[threadIdx.y * blockDim.x + tx] = t[threadIdx.y][tx] + 1;
}

int main() {
  int *out;
  cudaMalloc(&out, 32 * sizeof(int));
  fill<<<1, dim3(8, 4)>>>(out);
  fill<<<1, dim3(16, 2)>>>(out);
  cudaDeviceSynchronize();
  cudaFree(out);
  printf("done\n");
  return 0;
}
