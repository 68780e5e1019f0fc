#include "harness.h"
#include <cuda/atomic>
// Message passing between blocks through a libcu++ atomic of block scope: its release and acquire do
// not reach another block, a race (on the data, and on the flag: block-scope atomics of two blocks).
__global__ void k(const int *in, int *out, int n) {
  int *data = &out[64];
  cuda::atomic_ref<int, cuda::thread_scope_block> flag(out[0]);
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = in[1] + in[2];  // RACE
    flag.store(1, cuda::memory_order_release);  // RACE
  } else if (blockIdx.x == 1) {
    while (flag.load(cuda::memory_order_acquire) == 0) {}  // RACE
    out[128] = data[0];  // RACE
  }
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
