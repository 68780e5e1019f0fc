// One thread of the grid indexes far past its buffer (a megabyte: beyond any redzone, where the
// next buffer or the checker's own memory may lie), and one writes a struct member past the end
// of an array of structs. Race-free otherwise.
#include <cstdio>
struct Particle { float x, y; };
__global__ void stray(int *a, int n, Particle *p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i;
  if (i == 37) a[i + (1 << 18)] = -1;       // line 9
  if (i == n - 1) p[i + 1].y = 2.0f;        // line 10
}
int main() {
  const int n = 64;
  int *a, *b;
  Particle *p;
  cudaMalloc(&a, n * sizeof(int));
  cudaMalloc(&b, (1 << 20) * sizeof(int));   // the next buffer: a stray write must not land here
  cudaMalloc(&p, n * sizeof(Particle));
  cudaMemset(b, 0, (1 << 20) * sizeof(int));
  stray<<<2, 32>>>(a, n, p);
  int h;
  cudaMemcpy(&h, a + 37, sizeof h, cudaMemcpyDeviceToHost);
  printf("a[37] = %d\n", h);
  return 0;
}
