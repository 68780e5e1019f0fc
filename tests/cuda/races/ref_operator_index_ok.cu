#include "harness.h"
// a matrix view whose operator() returns a reference: each thread writes its own element, and
// after the barrier reads its transposed neighbour's
struct Matrix {
  int *p;
  int cols;
  __device__ int &operator()(int r, int c) const { return p[r * cols + c]; }
  __device__ int &at(int i) const { return p[i]; }
};
__global__ void k(const int *in, int *out, int n) {
  Matrix m{out, 8};
  int r = threadIdx.x / 8, c = threadIdx.x % 8;
  m(r, c) = in[threadIdx.x];
  __syncthreads();
  int t = m(c, r);
  __syncthreads();
  m.at(64 + threadIdx.x) = t;
}
int main() {
  Bufs b = setup();
  k<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
