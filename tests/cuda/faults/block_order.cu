// Records the order in which blocks start (a deliberately racy counter is
// fine here: on the cpu backend blocks run one after another).
#include <cstdio>
__global__ void k(int *counter, int *order) {
  if (threadIdx.x == 0) order[atomicAdd(counter, 1)] = blockIdx.x;
}
int main() {
  int *c, *o, h[6];
  cudaMalloc(&c, sizeof(int));
  cudaMalloc(&o, sizeof h);
  cudaMemset(c, 0, sizeof(int));
  k<<<6, 4>>>(c, o);
  cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 6; ++i) printf("%d%c", h[i], i == 5 ? '\n' : ' ');
  return 0;
}
