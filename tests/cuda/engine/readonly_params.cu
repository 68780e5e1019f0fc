// `in` is a parameter the kernel only reads through, `out` one it writes through. In a launch where
// they point into different buffers, reads through `in` cannot race: hirace checks only their
// bounds (instrument/readonly_params.py). Launch 2 passes one buffer as both: the reads are checked
// and race with the neighbour's write. The last thread reads one element past the end in every launch.
#include <cstdio>

__global__ void shift(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 1];
}

struct Pair {
  int *a, *b;
};

int main() {
  const int n = 64;
  int *a, *b;
  cudaMalloc(&a, n * sizeof(int));
  cudaMalloc(&b, n * sizeof(int));
  cudaMemset(a, 0, n * sizeof(int));
  shift<<<1, n>>>(a, b, n);
  shift<<<1, n>>>(a, a, n);
  Pair p{b, a};
  shift<<<1, n>>>(p.a, p.b, n);
  cudaDeviceSynchronize();
  cudaFree(a);
  cudaFree(b);
  printf("done\n");
  return 0;
}
