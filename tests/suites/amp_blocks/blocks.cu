// Three multi-block kernels for block-schedule amplification:
//   mode 0: a race-free vector scale with a per-block sum (stable under every schedule);
//   mode 1: every block records itself as "last" (an inter-block race: the
//           output names whichever block ran last);
//   mode 2: block 0 publishes a base value that the other blocks read without
//           any synchronisation (only correct when block 0 runs first).
#include <cstdio>
#include <cstdlib>

__global__ void scale(const int *in, int *out, int *block_sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] * 3 : 0;
  if (i < n) out[i] = v;
  atomicAdd(&block_sums[blockIdx.x % 16], v);
}

__global__ void last_writer(int *last) {
  if (threadIdx.x == 0) *last = blockIdx.x;
}

__global__ void publish(int *base, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *base = 100;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = *base + blockIdx.x;
}

int main(int argc, char **argv) {
  int mode = std::atoi(argv[1]);
  int blocks = argc > 2 ? std::atoi(argv[2]) : 40;
  const int tpb = 64;
  long n = (long)blocks * tpb;
  int *d_in, *d_out, *d_aux;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMalloc(&d_aux, 16 * sizeof(int));
  cudaMemset(d_aux, 0, 16 * sizeof(int));
  cudaMemset(d_out, 0, n * sizeof(int));
  long check = 0;
  if (mode == 0) {
    int *h = (int *)std::malloc(n * sizeof(int));
    for (long i = 0; i < n; ++i) h[i] = int(i % 1000);
    cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice);
    scale<<<blocks, tpb>>>(d_in, d_out, d_aux, (int)n);
    int sums[16];
    cudaMemcpy(sums, d_aux, sizeof sums, cudaMemcpyDeviceToHost);
    for (int k = 0; k < 16; ++k) check += sums[k];
  } else if (mode == 1) {
    last_writer<<<blocks, tpb>>>(d_aux);
    int last;
    cudaMemcpy(&last, d_aux, sizeof last, cudaMemcpyDeviceToHost);
    check = last;
  } else {
    publish<<<blocks, tpb>>>(d_aux, d_out);
    int *h = (int *)std::malloc(blocks * sizeof(int));
    cudaMemcpy(h, d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) check += h[b];
  }
  std::printf("mode %d blocks %d result %ld\n", mode, blocks, check);
  return 0;
}
