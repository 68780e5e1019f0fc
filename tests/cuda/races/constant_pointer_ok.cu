#include "harness.h"
// reads through a local pointer into __constant__ memory (a row of a table the host set) read what no thread
// writes: not checked, as reads of the variable itself are not (hirace/proofs/facts.py through_constant)
__constant__ int c_table[4][8];
__global__ void k(const int *in, int *out, int n) {
  const int *row = &c_table[threadIdx.x % 4][0];
  int sum = 0;
  for (int b = 0; b < 8; b++) sum += row[b];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum + in[threadIdx.x];
}
int main() {
  Bufs b = setup();
  int h[4][8];
  for (int i = 0; i < 32; i++) h[i / 8][i % 8] = i;
  cudaMemcpyToSymbol(c_table, h, sizeof h);
  k<<<2, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
