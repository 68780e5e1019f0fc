// A histogram by atomics. Made a plain read-modify-write, the update is lost
// only when another thread runs between its read and its write: whether a run
// notices depends on the schedule.
#include <cstdio>

__global__ void hist(const int *in, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i] % 4], 1);
}

int main() {
  const int n = 256;
  int h[n], b[4] = {0, 0, 0, 0};
  for (int i = 0; i < n; ++i) h[i] = (i * 5) % 11;
  int *din, *db;
  cudaMalloc(&din, sizeof h);
  cudaMalloc(&db, sizeof b);
  cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  hist<<<4, 64>>>(din, db, n);
  cudaMemcpy(b, db, sizeof b, cudaMemcpyDeviceToHost);
  std::printf("%d %d %d %d\n", b[0], b[1], b[2], b[3]);
  return 0;
}
