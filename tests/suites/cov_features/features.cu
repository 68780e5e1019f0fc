// Coverage features in one program: switch fall-through, short-circuit
// operands, a loop that only ends by `break`, and a barrier that part of a
// block skips (the scan pattern of CLTestCheck's paper).
#include <cstdio>
#include <cstdlib>

__device__ int classify(int v) {
  int r = 0;
  switch (v % 4) {
    case 0:
      r += 1;          // falls through into case 1
    case 1:
      r += 2;
      break;
    case 2:
      r = 7;
      break;
  }
  return r;
}

__global__ void features(const int *in, int *out, int n, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int acc = classify(v);
  if (mode > 0 && v > 2) acc += 10;
  int steps = 0;
  while (true) {          // ends only by break
    if (steps >= v) break;
    ++steps;
  }
  acc += steps;
  out[i] = acc;
}

__global__ void scan_partial(int *data, int n) {
  __shared__ int tmp[64];
  int t = threadIdx.x;
  if (t >= n) return;   // threads past n leave before the barrier
  tmp[t] = data[t];
  __syncthreads();
  data[t] = tmp[t] + (t > 0 ? tmp[t - 1] : 0);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 8;
  int mode = argc > 2 ? std::atoi(argv[2]) : 0;
  int scan_n = argc > 3 ? std::atoi(argv[3]) : 64;
  int *h = (int *)std::malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = i % 3;
  int *din, *dout, *ds;
  cudaMalloc(&din, n * sizeof(int));
  cudaMalloc(&dout, n * sizeof(int));
  cudaMalloc(&ds, 64 * sizeof(int));
  cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice);
  features<<<(n + 31) / 32, 32>>>(din, dout, n, mode);
  cudaMemcpy(h, dout, n * sizeof(int), cudaMemcpyDeviceToHost);
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  int hs[64];
  for (int i = 0; i < 64; ++i) hs[i] = i;
  cudaMemcpy(ds, hs, sizeof hs, cudaMemcpyHostToDevice);
  scan_partial<<<1, 64>>>(ds, scan_n);
  cudaMemcpy(hs, ds, sizeof hs, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i) sum += hs[i];
  std::printf("sum %ld\n", sum);
  return 0;
}
