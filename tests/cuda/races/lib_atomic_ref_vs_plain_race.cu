#include "harness.h"
#include <cuda/atomic>
// libcu++: a cuda::atomic_ref of device scope and a plain write of the same word in another thread
__global__ void k(const int *in, int *out, int n) {
  cuda::atomic_ref<int, cuda::thread_scope_device> total(out[0]);
  if (threadIdx.x == 0) out[0] = in[0];  // RACE
  else total.fetch_add(in[threadIdx.x], cuda::std::memory_order_relaxed);  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
