#include "harness.h"
// alias_loop_ok's rounds a row apart where the block is two rows high: thread (x, 1) of round 0 and thread
// (x, 0) of round 1 meet
__global__ void cols(int *img, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  for (int step = 0; step < 4; step++) {
    int *p = img + (threadIdx.y + step) * width + x;
    *p = *p + 1;  // RACE
  }
}
int main() {
  Bufs b = setup();
  cols<<<2, dim3(32, 2)>>>(b.out, 64);
  return finish(b);
}
