#include "harness.h"
#include <cuda/atomic>
#include <cuda/std/atomic>
// libcu++: atomics as objects, in shared memory (block scope) and in device memory (cuda::std, system
// scope, through a pointer); the plain reads come after a barrier or in a later kernel
__device__ cuda::std::atomic<int> hits;
__global__ void k(const int *in, int *out, int n) {
  __shared__ cuda::atomic<int, cuda::thread_scope_block> seen;
  if (threadIdx.x == 0) seen.store(0, cuda::std::memory_order_relaxed);
  __syncthreads();
  seen.fetch_add(1, cuda::std::memory_order_relaxed);
  hits++;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = seen.load(cuda::std::memory_order_relaxed);
}
__global__ void report(cuda::std::atomic<int> *h, int *out) { out[10] = h->load(); }
int main() {
  Bufs b = setup();
  k<<<2, 64>>>(b.in, b.out, b.n);
  cuda::std::atomic<int> *h;
  cudaGetSymbolAddress((void **)&h, hits);
  report<<<1, 1>>>(h, b.out);
  return finish(b);
}
