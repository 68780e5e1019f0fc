// Launches of kernel templates and their quiet versions (hirace/proofs/quiet_version.py): a launch that
// names every template argument may run the version; one whose arguments are deduced, all or some,
// runs the kernel. `pair` writes two threads' element (checked whole: no version); `sum` adds up a
// count the data decides (an open loop: none, but under HIRACE_BENCH_OPEN_LOOP_VERSIONS=1).
#include <cstdio>

template <typename F> __global__ void fill(F *out, F v) { out[blockIdx.x * blockDim.x + threadIdx.x] = v; }

template <int T, typename F> __global__ void put(F *out) { out[blockIdx.x * T + threadIdx.x] = (F)T; }

__global__ void pair(float *out) { out[threadIdx.x / 2] = 1.f; }

__global__ void sum(const int *count, const float *in, float *out) {
  float acc = 0;
  for (int i = 0; i < count[0]; ++i) acc += in[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main() {
  float *p, *q;
  int *count, four = 4;
  cudaMalloc(&p, 64 * sizeof(float));
  cudaMalloc(&q, 64 * sizeof(float));
  cudaMalloc(&count, sizeof(int));
  cudaMemcpy(count, &four, sizeof four, cudaMemcpyHostToDevice);
  fill<<<2, 32>>>(p, 1.f);
  fill<float><<<2, 32>>>(p, 2.f);
  put<32><<<2, 32>>>(p);
  put<32, float><<<2, 32>>>(p);
  sum<<<2, 32>>>(count, p, q);
  pair<<<1, 2>>>(q);
  float h[2];
  cudaMemcpy(h, q, sizeof h, cudaMemcpyDeviceToHost);
  printf("out %g %g\n", h[0], h[1]);
  return 0;
}
