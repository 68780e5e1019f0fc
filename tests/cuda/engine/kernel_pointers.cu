// Kernels chosen through a pointer, whose writes are each thread's own over a counted loop
// (hirace/pointer_launches.py, hirace/proofs/own_index.py): `rows` copies a T x T tile in steps of R
// rows, `swap` writes it transposed after assigning its coordinates again. Launches 1 and 2 (blocks
// of T x R) run the quiet versions; launch 3's blocks are T x 2R tall (one row of them), so thread row r + R at step i
// writes the row thread r writes at step i + 1: a write-write race, found by the checked kernel;
// launch 4 passes a pointer into the middle of `a` as `in` (its reads race with the writes).
#include <cstdio>
#define T 8
#define R 2

__global__ void rows(float *out, const float *in, int w) {
  int x = blockIdx.x * T + threadIdx.x;
  int y = blockIdx.y * T + threadIdx.y;
  int index = x + w * y;
  for (int i = 0; i < T; i += R) out[index + i * w] = in[index + i * w] + 1;
}

__global__ void swap(float *out, const float *in, int w) {
  int x = blockIdx.x * T + threadIdx.x;
  int y = blockIdx.y * T + threadIdx.y;
  int from = x + y * w;
  x = blockIdx.y * T + threadIdx.x;
  y = blockIdx.x * T + threadIdx.y;
  int to = x + y * w;
  for (int i = 0; i < T; i += R) out[to + i * w] = in[from + i];
}

int main() {
  const int w = 16;
  float *a, *b;
  cudaMalloc(&a, w * w * sizeof(float));
  cudaMalloc(&b, w * w * sizeof(float));
  cudaMemset(b, 0, w * w * sizeof(float));
  void (*kernels[2])(float *, const float *, int) = {&rows, &swap};
  void (*kernel)(float *, const float *, int);
  for (int k = 0; k < 4; ++k) {
    kernel = kernels[k % 2];
    dim3 block(T, k == 2 ? 2 * R : R);
    const float *in = k == 3 ? a + w : b;
    kernel<<<dim3(w / T, k == 2 ? 1 : w / T), block>>>(a, in, w);
  }
  cudaDeviceSynchronize();
  float h[w * w];
  cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
  printf("%g %g\n", h[0], h[w * w - 1]);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
