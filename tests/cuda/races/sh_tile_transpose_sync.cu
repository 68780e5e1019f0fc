#include "harness.h"
__global__ void k(const int *in, int *out, int n) {
  __shared__ int tile[8][9];
  int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = in[y * 8 + x];
  __syncthreads();
  out[blockIdx.x * 64 + x * 8 + y] = tile[x][y];
}
int main() {
  Bufs b = setup();
  k<<<2, dim3(8, 8)>>>(b.in, b.out, b.n);
  return finish(b);
}
