#include "harness.h"
// a counted loop whose bound the comparison converts: `s < n` compares unsigned, so n = -1 is 4294967295 and the
// loop runs until its break, two rounds, not none; round 1 of thread t writes the element thread t + 32 writes in
// round 0 (own_index.py counts the rounds with U as the comparison's type has it)
__global__ void k(int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned s = 0; s < n; s++) {
    out[s * 32 + t] = s;  // RACE
    if (s == 1) break;
  }
}
int main() {
  Bufs b = setup();
  k<<<2, 32>>>(b.out, -1);
  return finish(b);
}
