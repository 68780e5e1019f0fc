#include "harness.h"
// A member written through a pointer of a template's parameter type (`p->value` of `T *p`), each thread its
// own cell: race-free (template_member_race.cu's fix).
struct Cell { int key, value; };
template <class T> __device__ void store(T *p, int v) { p->value = v; }
template <class T> __global__ void k(T *cells, const int *in) { store(cells + threadIdx.x, in[threadIdx.x]); }
int main() {
  Bufs b = setup();
  Cell *cells;
  cudaMalloc(&cells, 64 * sizeof(Cell));
  k<Cell><<<1, 64>>>(cells, b.in);
  cudaDeviceSynchronize();
  cudaFree(cells);
  return finish(b);
}
