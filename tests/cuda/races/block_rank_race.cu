#include "harness.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// thread_rank() taken apart: two threads of a row share a word, and a kernel that names threadIdx.y (whose
// rank is then not taken for threadIdx.x) writes one word per column of its two-row blocks
__global__ void halves(const int *in, int *out, int n) {
  __shared__ int tmp[32];
  cg::thread_block cta = cg::this_thread_block();
  tmp[cta.thread_rank() / 2] = in[cta.thread_rank()];  // RACE
  cg::sync(cta);
  out[cta.thread_rank()] = tmp[cta.thread_rank() / 2];
}
__global__ void rows(const int *in, int *out, int n) {
  __shared__ int tmp[64];
  cg::thread_block cta = cg::this_thread_block();
  tmp[cta.thread_rank() - threadIdx.y * blockDim.x] = in[cta.thread_rank()];  // RACE
  cg::sync(cta);
  out[64 + cta.thread_rank()] = tmp[threadIdx.x];
}
int main() {
  Bufs b = setup();
  halves<<<1, 64>>>(b.in, b.out, b.n);
  rows<<<1, dim3(32, 2)>>>(b.in, b.out, b.n);
  return finish(b);
}
