#include "harness.h"
#include <cstring>
// a device memcpy between a thread's own locals leaves the unit's proofs on (hirace/proofs/facts.py);
// a neighbour's shared word read in the write's barrier interval still races
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
  s[threadIdx.x] = p.a;  // RACE
  out[blockIdx.x * 32 + threadIdx.x] = s[(threadIdx.x + 1) % 32] + p.b;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.in, b.out, b.n);
  return finish(b);
}
