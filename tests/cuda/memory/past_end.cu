// Reads and writes just past the end and before the start of global buffers: the kernel runs
// one thread more than the buffer has elements and forgets the bounds guard (an Indigo boundsBug).
#include <cstdio>
__global__ void shift(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + in[i - 1];   // line 6: out[n] written past the end, in[-1] read before the start
}
int main() {
  const int n = 63;
  int *in, *out;
  cudaMalloc(&in, n * sizeof(int));    // line 11
  cudaMalloc(&out, n * sizeof(int));   // line 12
  cudaMemset(in, 0, n * sizeof(int));
  shift<<<1, n + 1>>>(in, out, n);
  int h[n];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("out[5] = %d\n", h[5]);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
