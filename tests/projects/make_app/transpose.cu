#include <cstdio>
#include <cstdlib>
#include <vector>

// a tiled transpose that forgets the barrier between writing its tile and reading it back
// transposed: a thread reads a word another warp writes (a data race)
__global__ void transpose(const int *in, int *out, int n) {
  __shared__ int tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  int tx = blockIdx.y * TILE + threadIdx.x, ty = blockIdx.x * TILE + threadIdx.y;
  if (tx < n && ty < n) out[ty * n + tx] = tile[threadIdx.x][threadIdx.y];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 64;
  std::vector<int> h(n * n);
  for (int i = 0; i < n * n; ++i) h[i] = i;
  int *d_in, *d_out;
  cudaMalloc(&d_in, n * n * sizeof(int));
  cudaMalloc(&d_out, n * n * sizeof(int));
  cudaMemcpy(d_in, h.data(), n * n * sizeof(int), cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  transpose<<<grid, block>>>(d_in, d_out, n);
  cudaMemcpy(h.data(), d_out, n * n * sizeof(int), cudaMemcpyDeviceToHost);
  long long sum = 0;
  for (int v : h) sum += v;
  std::printf("transpose: sum %lld\n", sum);
  return 0;
}
