#include "harness.h"
#include <cuda/atomic>
// libcu++: thread_scope_thread is atomic to its own thread only: two threads adding race
__global__ void k(const int *in, int *out, int n) {
  cuda::atomic_ref<int, cuda::thread_scope_thread> mine(out[threadIdx.x / 2]);
  mine.fetch_add(1);  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
