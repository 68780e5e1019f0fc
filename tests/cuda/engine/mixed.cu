#include <cstdio>
#include <vector>
#define IDX(i) a[i]
struct P { int x; float y; };
__device__ int g[16];
__constant__ float c[4];
template <typename T> __device__ T twice(T *p, int i) { return p[i] * 2; }
__device__ void dev(int *p, P *q) { p[1]++; q->x = 3; (*q).y += 1.0f; }
__global__ void k(int *a, int n, P *ps) {
  __shared__ int s[32][4];
  extern __shared__ float dyn[];
  int loc[4];
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  loc[0] = 1;
  if (i < n && a[i] > 0) { s[threadIdx.x][0] = a[i]; __syncthreads(); a[i] += s[0][1]; atomicAdd(&a[0], 1); }
  else a[i] = 0;
  for (int j = 0; j < n; j++) { *(a + j) = g[j] + c[0]; }
  while (i > 0) { i--; if (i == 3) break; }
  do { i++; } while (i < 5);
  switch (i) { case 1: a[1] = 2; case 2: break; default: break; }
  int z = i > 2 ? ps[i].x : IDX(i);
  dyn[i] = twice(a, i);
  dev(a, ps);
  atomicAdd_block(&g[0], 1); __syncwarp();
}
int main() { int *d; P *p; std::vector<int> v(3); k<<<2, 32>>>(d, 10, p); k<<<dim3(2), 32, 0, 0>>>(d, 10, p); printf("%d\n", v[0]); }
