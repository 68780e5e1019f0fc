// Barriers that blocks reach with threads missing: threads that leave at different rounds of a loop
// of barriers, in blocks of a 2D shape that is not a whole number of warps; whole warps that leave
// before the first barrier; blocks that keep every thread; and a kernel whose barrier is in a device
// function it calls. The coverage of each barrier (reached, reached by a whole block, the blocks that
// reached it short) must be the same on every backend.
#include <cstdio>
#include <cstdlib>

__global__ void staged(int *data, int rounds, int short_block) {
  __shared__ int buf[128];
  int t = threadIdx.x + blockDim.x * threadIdx.y;
  int nt = blockDim.x * blockDim.y;
  buf[t] = data[blockIdx.x * nt + t];
  for (int r = 0; r < rounds; ++r) {
    if ((int)blockIdx.x == short_block && t % (rounds + 1) == r) return;   // leaves before round r
    __syncthreads();
    int v = buf[(t + 1) % nt];
    __syncthreads();
    buf[t] += v;
  }
  data[blockIdx.x * nt + t] = buf[t];
}

__global__ void warps_leave(int *data, int stay) {
  __shared__ int s[256];
  int t = threadIdx.x;
  if (t / 32 >= stay) return;   // whole warps leave before the first barrier
  s[t] = t + (int)blockIdx.x;
  __syncthreads();
  data[blockIdx.x * blockDim.x + t] = s[(t + 32) % (stay * 32)];
  __syncthreads();
  if (t == 0) data[blockIdx.x * blockDim.x] += 1;
}

__device__ float scaled(float x) { return sqrtf(fabsf(x)) + 1.0f; }

__global__ void all_stay(float *data, int rounds) {
  __shared__ float s[96];
  int t = threadIdx.x;
  s[t] = data[blockIdx.x * 96 + t];
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    float v = scaled(s[(t + r + 1) % 96]);
    __syncthreads();
    s[t] = v;
  }
  data[blockIdx.x * 96 + t] = s[t];
}

// The upper half of each block leaves after the first round: over three rounds each barrier's
// arrivals add up to whole blocks (64 + 32 + 32), though only the first round had every thread.
__global__ void halves(int *data, int rounds) {
  __shared__ int s[64];
  int t = threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    if (r == 1 && t >= 32) return;
    s[t] = t + r;
    __syncthreads();
    data[blockIdx.x * 64 + t] += s[(t + 1) % 32];
    __syncthreads();
  }
}

__device__ void meet() { __syncthreads(); }

__global__ void helper_barrier(int *data, int n) {
  int t = threadIdx.x;
  if (t >= n) return;
  data[t] += 1;
  meet();
  data[t] += data[(t + 1) % n];
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  int short_block = argc > 2 ? std::atoi(argv[2]) : 1;
  int stay = argc > 3 ? std::atoi(argv[3]) : 5;
  int helper_n = argc > 4 ? std::atoi(argv[4]) : 48;
  const int staged_blocks = 4, nt = 120;
  int *d, *h = (int *)std::malloc(staged_blocks * nt * sizeof(int));
  long sum = 0;
  for (int i = 0; i < staged_blocks * nt; ++i) h[i] = i % 7;
  cudaMalloc(&d, staged_blocks * nt * sizeof(int));
  cudaMemcpy(d, h, staged_blocks * nt * sizeof(int), cudaMemcpyHostToDevice);
  staged<<<staged_blocks, dim3(12, 10)>>>(d, rounds, short_block);
  cudaMemcpy(h, d, staged_blocks * nt * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < staged_blocks * nt; ++i) sum += h[i];

  int *w, hw[3 * 256] = {0};
  cudaMalloc(&w, sizeof hw);
  cudaMemcpy(w, hw, sizeof hw, cudaMemcpyHostToDevice);
  warps_leave<<<3, 256>>>(w, stay);
  cudaMemcpy(hw, w, sizeof hw, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 3 * 256; ++i) sum += hw[i];

  float *f, hf[64 * 96];
  for (int i = 0; i < 64 * 96; ++i) hf[i] = (float)(i % 11);
  cudaMalloc(&f, sizeof hf);
  cudaMemcpy(f, hf, sizeof hf, cudaMemcpyHostToDevice);
  all_stay<<<64, 96>>>(f, rounds);
  cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
  double fsum = 0;
  for (int i = 0; i < 64 * 96; ++i) fsum += hf[i];

  int *hv, hh[2 * 64] = {0};
  cudaMalloc(&hv, sizeof hh);
  cudaMemcpy(hv, hh, sizeof hh, cudaMemcpyHostToDevice);
  halves<<<2, 64>>>(hv, rounds);
  cudaMemcpy(hh, hv, sizeof hh, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 2 * 64; ++i) sum += hh[i];

  int *g, hg[64] = {0};
  cudaMalloc(&g, sizeof hg);
  cudaMemcpy(g, hg, sizeof hg, cudaMemcpyHostToDevice);
  helper_barrier<<<1, 64>>>(g, helper_n);
  cudaMemcpy(hg, g, sizeof hg, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i) sum += hg[i];
  std::printf("sum %ld fsum %.3f\n", sum, fsum);
  return 0;
}
