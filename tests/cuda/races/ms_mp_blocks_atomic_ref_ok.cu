#include "harness.h"
#include <cuda/atomic>
// Message passing between blocks through libcu++: a release store and an acquire load of device scope
// carry their own fences. Race-free.
__global__ void k(const int *in, int *out, int n) {
  int *data = &out[64];
  cuda::atomic_ref<int, cuda::thread_scope_device> flag(out[0]);
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = in[1] + in[2];
    flag.store(1, cuda::memory_order_release);
  } else if (blockIdx.x == 1) {
    while (flag.load(cuda::memory_order_acquire) == 0) {}
    out[128] = data[0];
  }
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
