#include "harness.h"
// a local pointer made from a parameter in each round of a loop (shfl_scan's shfl_vertical_shfl: `unsigned int
// *p = img + (threadIdx.y + step * 8) * width + tidx;` then `*p`): the block's rows, blockDim.y of them a round,
// one element of each per thread
__global__ void cols(int *img, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  for (int step = 0; step < 4; step++) {
    int *p = img + (threadIdx.y + step * 2) * width + x;
    *p = *p + 1;
  }
}
int main() {
  Bufs b = setup();
  cols<<<2, dim3(32, 2)>>>(b.out, 64);  // eight rows of 64
  return finish(b);
}
