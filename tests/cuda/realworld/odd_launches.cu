// Launch forms nvcc accepts: a kernel's default arguments left out, `<< <...>> >` with spaces,
// a launch through a function pointer, pinned memory with flags, a 3-byte element type, a 16-byte value shuffled across a tile.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;
struct RGB { unsigned char r, g, b; };

__global__ void fill(int *a, int w, int *extra = NULL) { a[threadIdx.x] = w + (extra ? 1 : 0); }
__global__ void copy_rgb(RGB *o, const RGB *i, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) o[k] = i[k];
}
__global__ void rotate(uint4 *v) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  uint4 mine = v[threadIdx.x];
  uint4 got = tile.shfl_xor(mine, 1);
  tile.sync();
  v[threadIdx.x] = got;
}

int main() {
  int *a, *h;
  RGB *x, *y;
  uint4 *v;
  cudaMallocManaged(&a, 32 * sizeof(int));
  cudaMallocHost((void **)&h, 64, cudaHostAllocDefault);
  cudaMallocManaged(&x, 3 * 256);
  cudaMallocManaged(&y, 3 * 256);
  cudaMallocManaged(&v, 32 * sizeof(uint4));
  for (int i = 0; i < 256; ++i) x[i] = RGB{(unsigned char)i, 1, 2};
  for (int i = 0; i < 32; ++i) v[i] = make_uint4(i, i, i, i);
  fill<<<1, 32>>>(a, 5);
  fill << < 1, 16 >> > (a, 6, a);
  void (*pick)(RGB *, const RGB *, int) = copy_rgb;
  pick<<<1, 128>>>(y, x, 128);
  copy_rgb<<<2, 128>>>(y, x, 256);
  rotate<<<1, 32>>>(v);
  cudaDeviceSynchronize();
  printf("%d %d %d %u %u\n", a[3], a[20], y[255].r, v[0].x, v[31].w);
  cudaFreeHost(h);
  return 0;
}
