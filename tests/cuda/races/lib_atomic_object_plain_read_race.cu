#include "harness.h"
#include <cuda/atomic>
// libcu++: a plain read of a shared atomic's word (through a pointer to its value) while other
// threads of the block add to it
__global__ void k(const int *in, int *out, int n) {
  __shared__ cuda::atomic<int, cuda::thread_scope_block> seen;
  if (threadIdx.x == 0) seen.store(0);
  __syncthreads();
  if (threadIdx.x == 5) out[0] = *reinterpret_cast<volatile int *>(&seen);  // RACE
  else seen.fetch_add(1);  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
