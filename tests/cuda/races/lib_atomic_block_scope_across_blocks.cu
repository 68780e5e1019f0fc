#include "harness.h"
#include <cuda/atomic>
// libcu++: an atomic_ref of block scope orders only the threads of one block
__global__ void k(const int *in, int *out, int n) {
  cuda::atomic_ref<int, cuda::thread_scope_block> count(out[0]);
  count.fetch_add(1);  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
