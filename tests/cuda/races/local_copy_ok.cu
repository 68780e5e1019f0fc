#include "harness.h"
#include <cstring>
// a device memcpy between a thread's own locals (a local array into a local struct) leaves the unit's
// proofs on (hirace/proofs/facts.py): the shared words are read after the barrier, race-free
struct Pair {
  int a, b;
};
__device__ Pair split(int v) {
  int parts[2] = {v, v + 1};
  Pair p;
  memcpy(&p, parts, sizeof(p));
  return p;
}
__global__ void k(const int *in, int *out, int n) {
  __shared__ int s[32];
  Pair p = split(in[threadIdx.x]);
  s[threadIdx.x] = p.a;
  __syncthreads();
  out[blockIdx.x * 32 + threadIdx.x] = s[(threadIdx.x + 1) % 32] + p.b;
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
