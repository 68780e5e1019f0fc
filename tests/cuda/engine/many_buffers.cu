// Many buffers (80, and hirace's own memory: a range table of about 90 entries, locate.h's binary
// search): every access is located in its own buffer.
// Thread 0 of each block reads its buffer's element 17, one past its end (line 12: 80 buffers, offset
// 68); blocks 40 and 41 both write buffer 57's element 16, which nothing reads (line 13, a write-write race).
#include <cstdio>

__global__ void touch(int *const *bufs, int *sums) {
  int b = blockIdx.x, t = threadIdx.x;
  int *mine = bufs[b];
  int v = mine[t];
  __syncthreads();
  if (t == 0) v += mine[17];
  if ((b == 40 || b == 41) && t == 0) bufs[57][16] = b;
  sums[b * 16 + t] = v;
}

int main() {
  const int n = 80;
  int *bufs[n], host[17];
  for (int i = 0; i < 17; ++i) host[i] = i;
  for (int b = 0; b < n; ++b) {
    cudaMalloc(&bufs[b], 17 * sizeof(int));
    cudaMemcpy(bufs[b], host, sizeof host, cudaMemcpyHostToDevice);
  }
  int **table, *sums, hs[n * 16];
  cudaMalloc(&table, sizeof bufs);
  cudaMalloc(&sums, sizeof hs);
  cudaMemcpy(table, bufs, sizeof bufs, cudaMemcpyHostToDevice);
  touch<<<n, 16>>>(table, sums);
  cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost);
  long total = 0;
  for (int i = 0; i < n * 16; ++i) total += hs[i];
  printf("total %ld\n", total);
  return 0;
}
