// An index that a loop moves by a stride each round (hirace/proofs/own_index.py induction): `at` starts at
// the thread's column and steps one row per round, so each thread owns its column's elements where the
// row is at least as wide as the grid's threads. scale's launch 0 runs its quiet version; launch 1's rows
// are narrower than its 64 threads, so two threads' columns meet: its kernel runs and reports the race
// (line 14). down reads its column's rows in one loop and writes them one row lower in another: the two
// forms differ by a whole step (own_index.py along_loop), so they meet only in one thread's elements;
// launch 2 runs its version, launch 3 (rows of 32) reports a thread's read of a word another writes
// (line 23).
#include <cstdio>

__global__ void scale(float *m, int rows, int cols) {
  int at = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rows; ++r) {
    m[at] = m[at] * 2.0f + 1.0f;
    at += cols;
  }
}

__global__ void down(float *m, int rows, int cols) {
  int at = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int r = 0; r < rows; ++r) {
    s += m[at];
    at += cols;
  }
  at = blockIdx.x * blockDim.x + threadIdx.x + cols;
  for (int r = 1; r < rows; ++r) {
    m[at] = s;
    at += cols;
  }
}

int main() {
  const int rows = 8, cols = 64;
  float h[rows * cols];
  for (int i = 0; i < rows * cols; ++i) h[i] = float(i % 3);
  float *m;
  cudaMalloc(&m, sizeof h);
  cudaMemcpy(m, h, sizeof h, cudaMemcpyHostToDevice);
  scale<<<2, 32>>>(m, rows, cols);
  cudaMemcpy(h, m, sizeof h, cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < rows * cols; ++i) sum += h[i];
  int half = cols / 2;
  scale<<<2, 32>>>(m, rows, half);
  down<<<2, 32>>>(m, rows, cols);
  down<<<2, 32>>>(m, rows, half);
  cudaDeviceSynchronize();
  printf("sum %.0f\n", sum);
  return 0;
}
