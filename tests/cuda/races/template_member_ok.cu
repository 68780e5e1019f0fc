#include "harness.h"
// Members written through a pointer of a template's parameter type (`p->value` of `T *p`), each thread its own
// cell, and each thread its own element of one cell's array member (`p->slot[i]`: where the member's type is
// not known, `p->slot` is taken for a load, which names the array once instantiated, and loads nothing):
// race-free (template_member_race.cu's fix).
struct Cell { int key, value; int slot[64]; };
template <class T> __device__ void store(T *p, int v) { p->value = v; }
template <class T> __device__ void mark(T *p, int i) { p->slot[i] = i; }
template <class T> __global__ void k(T *cells, const int *in) {
  store(cells + threadIdx.x, in[threadIdx.x]);
  mark(cells, threadIdx.x);
}
int main() {
  Bufs b = setup();
  Cell *cells;
  cudaMalloc(&cells, 64 * sizeof(Cell));
  k<Cell><<<1, 64>>>(cells, b.in);
  cudaDeviceSynchronize();
  cudaFree(cells);
  return finish(b);
}
