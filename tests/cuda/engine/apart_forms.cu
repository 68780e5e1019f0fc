// An own parameter read at other indices (hirace/proofs/readonly_params.py, runtime forms_apart):
// each block updates its BS x BS tile of m, below and right of `base`, from the strip of rows above
// the tiles and the strip of columns left of them, as lud's internal blocks do. With lag 0 no read
// meets a write: the launch runs the quiet version. With lag BS the strip read is the first row of
// tiles, which the blocks of that row write: blocks further down read elements being written (a
// read-write race between blocks, found by the checked kernel).
#include <cstdio>
#define BS 4

__global__ void update(float *m, int n, int base, int lag) {
  __shared__ float up[BS][BS], left[BS][BS];
  int i;
  float sum = 0;
  int row = base + (blockIdx.y + 1) * BS;
  int col = base + (blockIdx.x + 1) * BS;
  up[threadIdx.y][threadIdx.x] = m[(base + lag + threadIdx.y) * n + col + threadIdx.x];
  left[threadIdx.y][threadIdx.x] = m[(row + threadIdx.y) * n + base + threadIdx.x];
  __syncthreads();
  for (i = 0; i < BS; i++)   // (a loop of a fixed count, its variable declared before it)
    sum += left[threadIdx.y][i] * up[i][threadIdx.x];
  m[(row + threadIdx.y) * n + col + threadIdx.x] -= sum;
}

int main() {
  const int n = 16;
  float *m;
  cudaMalloc(&m, n * n * sizeof(float));
  float ones[n * n];
  for (int k = 0; k < n * n; ++k) ones[k] = 1;
  cudaMemcpy(m, ones, sizeof ones, cudaMemcpyHostToDevice);
  update<<<dim3(3, 3), dim3(BS, BS)>>>(m, n, 0, 0);
  update<<<dim3(2, 2), dim3(BS, BS)>>>(m, n, BS, BS);
  float h[n * n];
  cudaMemcpy(h, m, sizeof h, cudaMemcpyDeviceToHost);
  printf("%g %g\n", h[0], h[5 * n + 5]);   // (launch 0's, which launch 1 does not write)
  cudaFree(m);
  return 0;
}
