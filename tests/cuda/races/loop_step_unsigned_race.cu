#include "harness.h"
// a counted loop whose step the variable's type converts: `s += S` with S = 0xffffffffu steps an int s down by
// one (s = 0, then -1); round 1 of thread t writes the element thread t - 1 writes in round 0 (own_index.py takes
// the step as the variable's type has it)
__global__ void k(int *out, unsigned S) {
  int t = threadIdx.x;
  for (int s = 0; s < 4; s += S) {
    out[100 + s + t] = s;  // RACE
    if (s == -1) break;
  }
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.out, 0xffffffffu);
  return finish(b);
}
