#include <cstdio>
extern "C" int *c_buffer(int n);
__global__ void twice(int *a) { a[threadIdx.x] *= 2; }
int main() {
  int *h = c_buffer(32), *d;
  cudaMalloc(&d, 32 * sizeof(int));
  cudaMemcpy(d, h, 32 * sizeof(int), cudaMemcpyHostToDevice);
  twice<<<1, 32>>>(d);
  cudaMemcpy(h, d, 32 * sizeof(int), cudaMemcpyDeviceToHost);
  printf("%d\n", h[31]);
  free(h);
  return 0;
}
