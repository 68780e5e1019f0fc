#include "harness.h"
#include <cuda/atomic>
// Message passing between blocks through libcu++ with a relaxed store: it releases nothing (the
// consumer's acquire load has nothing to synchronise with), a race.
__global__ void k(const int *in, int *out, int n) {
  int *data = &out[64];
  cuda::atomic_ref<int, cuda::thread_scope_device> flag(out[0]);
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = in[1] + in[2];  // RACE
    flag.store(1, cuda::memory_order_relaxed);
  } else if (blockIdx.x == 1) {
    while (flag.load(cuda::memory_order_acquire) == 0) {}
    out[128] = data[0];  // RACE
  }
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
