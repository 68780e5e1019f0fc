// Every access through `out` is out[index], and index gives each thread its own element when the
// block is BS x BS (instrument/own_index.py): where `out` shares its buffer with no other argument,
// hirace checks only its bounds. Launch 1's wider blocks give two threads one element (their writes
// race); launch 2 passes one buffer as both arguments (the read of the neighbour's element races
// with its write); launch 3 moves `out` one element on, so the last thread writes past the end.
#include <cstdio>
#define BS 4

__global__ void twice(float *out, const float *in, int cols) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int index = cols * BS * blockIdx.y + BS * blockIdx.x + cols * ty + tx;
  out[index] = in[index] * 2;
  out[index] += in[index + 1];
}

int main() {
  const int n = 16;
  float *a, *b;
  cudaMalloc(&a, n * n * sizeof(float));
  cudaMalloc(&b, (n * n + 1) * sizeof(float));
  cudaMemset(b, 0, (n * n + 1) * sizeof(float));
  twice<<<dim3(4, 4), dim3(BS, BS)>>>(a, b, n);
  twice<<<dim3(3, 4), dim3(2 * BS, BS)>>>(a, b, n);
  twice<<<dim3(4, 4), dim3(BS, BS)>>>(b, b, n);
  twice<<<dim3(4, 4), dim3(BS, BS)>>>(a + 1, b, n);
  cudaDeviceSynchronize();
  cudaFree(a);
  cudaFree(b);
  printf("done\n");
  return 0;
}
