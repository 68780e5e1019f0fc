#include "harness.h"
// A member written through a pointer of a template's parameter type (`p->value` of `T *p`: libclang locates
// such a member at its base, so `->` was not seen and the write was neither recorded nor checked). Threads 32
// apart write one cell.
struct Cell { int key, value; };
template <class T> __device__ void store(T *p, int v) { p->value = v; }  // RACE
template <class T> __global__ void k(T *cells, const int *in) { store(cells + (threadIdx.x & 31), in[threadIdx.x]); }
int main() {
  Bufs b = setup();
  Cell *cells;
  cudaMalloc(&cells, 64 * sizeof(Cell));
  k<Cell><<<1, 64>>>(cells, b.in);
  cudaDeviceSynchronize();
  cudaFree(cells);
  return finish(b);
}
