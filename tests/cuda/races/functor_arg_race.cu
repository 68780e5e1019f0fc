#include "harness.h"
// a template kernel calls the functor it is given on its neighbour's element, which the neighbour
// writes: the read is the argument of a call the template cannot resolve
template <class F> __global__ void apply(int *data, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = f(data[(i + 1) % n]);  // RACE
}
struct Inc {
  __device__ int operator()(int v) const { return v + 1; }
};
int main() {
  Bufs b = setup();
  apply<<<b.n / 128, 128>>>(b.out, b.n, Inc());
  return finish(b);
}
