#include "harness.h"
// Message passing between blocks through a volatile flag (a strong access: PTX's ld/st.volatile), with
// fences on both sides. Race-free.
__global__ void k(const int *in, int *out, int n) {
  volatile int *flag = &out[0];
  int *data = &out[64];
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = in[1] + in[2];
    __threadfence();
    *flag = 1;
  } else if (blockIdx.x == 1) {
    while (*flag == 0) {}
    __threadfence();
    out[128] = data[0];
  }
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
