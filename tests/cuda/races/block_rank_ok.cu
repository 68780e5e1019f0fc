#include "harness.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// a thread block's thread_rank() as the index: each thread's own shared word and element (the proofs take it
// for threadIdx.x where the kernel names no other coordinate: hirace/proofs/own_index.py block_rank), in a
// launch of one-dimensional blocks and in one of two-dimensional blocks (where those proofs do not hold)
__global__ void k(const int *in, int *out, int n) {
  __shared__ int tmp[64];
  cg::thread_block cta = cg::this_thread_block();
  unsigned tid = cta.thread_rank();
  tmp[cta.thread_rank()] = in[blockIdx.x * 64 + tid];
  cg::sync(cta);
  out[blockIdx.x * 64 + tid] = tmp[(tid + 1) % 64] + tmp[tid];
}
int main() {
  Bufs b = setup();
  k<<<4, 64>>>(b.in, b.out, b.n);
  k<<<4, dim3(32, 2)>>>(b.in, b.out, b.n);
  return finish(b);
}
