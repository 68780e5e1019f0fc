#include "harness.h"
// a view type whose operator[] and operator() return references into global memory: sixteen
// threads write each element through operator[], and all read-modify-write one through operator()
struct View {
  int *p;
  __device__ int &operator[](int i) const { return p[i]; }
  __device__ int &operator()(int r, int c) const { return p[r * 8 + c]; }
};
__global__ void k(const int *in, int *out, int n) {
  View v{out};
  v[threadIdx.x % 4] = in[threadIdx.x];  // RACE
  v(1, 1) += 1;  // RACE
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
