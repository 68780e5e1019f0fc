#include "harness.h"
#include <cuda/atomic>
// libcu++: every thread of every block adds through a device-scope atomic_ref; after a barrier
// the block's first thread reads its own word with an atomic load
__global__ void k(const int *in, int *out, int n) {
  cuda::atomic_ref<int, cuda::thread_scope_device> total(out[0]);
  total += in[blockIdx.x * blockDim.x + threadIdx.x];
  ++cuda::atomic_ref<int, cuda::thread_scope_device>(out[1 + blockIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) out[100 + blockIdx.x] = cuda::atomic_ref<int, cuda::thread_scope_device>(out[1 + blockIdx.x]).load();
}
int main() {
  Bufs b = setup();
  k<<<4, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
