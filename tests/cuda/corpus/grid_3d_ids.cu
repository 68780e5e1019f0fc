#include "corpus_util.h"
__global__ void ids(int *out) {
  int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int per = blockDim.x * blockDim.y * blockDim.z;
  out[bx * per + tx] = bx * 1000 + tx * 10 + (threadIdx.z + blockIdx.z);
}
int main() {
  dim3 g(2, 3, 4), b(4, 2, 2);
  const int total = 2 * 3 * 4 * 16;
  int o[total];
  int *d;
  CK(cudaMalloc(&d, sizeof o));
  ids<<<g, b>>>(d);
  to_host(o, d, total);
  bool ok = true; unsigned long long s = 0;
  for (int bz = 0; bz < 4; ++bz) for (int by = 0; by < 3; ++by) for (int bx = 0; bx < 2; ++bx)
    for (int tz = 0; tz < 2; ++tz) for (int ty = 0; ty < 2; ++ty) for (int tx = 0; tx < 4; ++tx) {
      int B = bx + 2 * (by + 3 * bz), T = tx + 4 * (ty + 2 * tz);
      ok &= o[B * 16 + T] == B * 1000 + T * 10 + tz + bz;
      s = s * 3 + o[B * 16 + T];
    }
  return verdict("grid_3d_ids", ok, s);
}
