// Two races: every thread that sees a large element stores 1 to *flag (a known benign
// write-write race, marked below), and each thread reads its neighbour's element that another
// thread overwrites (a real race).
#include <cstdio>
__global__ void mark(int *flag, int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && a[i] > 2) *flag = 1;  // hirace: benign-race (every writer stores 1)
  if (i < n) a[i] = a[(i + 1) % n];
}
int main() {
  int *flag, *a, n = 64, h[64];
  cudaMalloc(&flag, sizeof(int));
  cudaMalloc(&a, n * sizeof(int));
  for (int i = 0; i < n; i++) h[i] = i;
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(flag, 0, sizeof(int));
  mark<<<2, 32>>>(flag, a, n);
  int f;
  cudaMemcpy(&f, flag, sizeof f, cudaMemcpyDeviceToHost);
  printf("flag %d\n", f);
  return 0;
}
