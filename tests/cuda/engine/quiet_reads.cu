// Reads of a shared tile between the barrier that ends its loading and the next one cannot race:
// hirace checks only their bounds (instrument/intervals.py). Thread 63's second read runs one
// element past the tile: a memory error, reported and diverted. After the second barrier each
// thread writes its word while its neighbour reads it: a race, reported as before.
#include <cstdio>

__global__ void shift(int *out) {
  __shared__ int tile[64];
  __shared__ int spare[64];
  tile[threadIdx.x] = threadIdx.x;
  spare[threadIdx.x] = 0;
  __syncthreads();
  int v = tile[threadIdx.x] + tile[threadIdx.x + (threadIdx.x == 63)];
  __syncthreads();
  tile[threadIdx.x] = v + spare[threadIdx.x];
  out[threadIdx.x] = tile[(threadIdx.x + 1) % 64];
}

int main() {
  int *out;
  cudaMalloc(&out, 64 * sizeof(int));
  shift<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  cudaFree(out);
  printf("done\n");
  return 0;
}
