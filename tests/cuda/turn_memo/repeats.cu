// Accesses a thread repeats in one turn of the cpu backend (runtime/include/hirace/turn_memo.h), each
// kernel launched by main; a line ending in `// RACE` takes part in a race.
#include <cstdio>

// Lane 31 reads s[0] twice before a __syncwarp() and once after, at one site. Only its read after the
// sync races, with lane 0's write: a memo that kept its read from before the sync would miss that race.
__global__ void after_warp_sync(int *out) {
  __shared__ int s[32];
  int x = 0;
  for (int r = 0; r < 3; ++r) {
    if (threadIdx.x == 31 || r < 2) x += s[0];   // RACE
    if (r == 1) __syncwarp();
  }
  if (threadIdx.x == 0) s[0] = 1;   // RACE
  out[threadIdx.x] = x;
}

// Thread 0 adds atomically to one word twice, reads it, and adds again at the first site: the word's
// slots then name its atomic, as they do without the memo (a memo that did not compare the slots would
// skip that last check and leave them naming the read). Thread 32 adds atomically: its atomic races with
// thread 0's read.
__global__ void own_change(int *out) {
  __shared__ int s[1];
  if (threadIdx.x == 0) s[0] = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    int x = 0;
    for (int r = 0; r < 3; ++r) {
      atomicAdd(&s[0], 1);
      if (r == 1) x += s[0];   // RACE
    }
    out[0] = x;
  }
  if (threadIdx.x == 32) atomicAdd(&s[0], 1);   // RACE
}

// Race-free repeats: per-thread bins read and written again and again (histogram64), shared bins
// added to atomically (histogram256), one word written many times by its own thread.
__global__ void bins(unsigned *out, const unsigned *in, int n) {
  __shared__ unsigned char own[64 * 64];
  __shared__ unsigned shared_bins[64];
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) own[i] = 0;
  if (threadIdx.x < 64) shared_bins[threadIdx.x] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    unsigned d = in[i];
    own[(d & 63) * 64 + threadIdx.x]++;
    own[((d >> 8) & 63) * 64 + threadIdx.x]++;
    atomicAdd(&shared_bins[d % 64], 1u);
    out[64 + threadIdx.x] = d;
  }
  __syncthreads();
  if (threadIdx.x < 64) {
    unsigned sum = shared_bins[threadIdx.x];
    for (int b = 0; b < 64; ++b) sum += own[threadIdx.x * 64 + b];
    out[threadIdx.x] = sum;
  }
}

// A word one block writes again and again while another reads it: a race across blocks.
__global__ void across_blocks(int *out) {
  for (int r = 0; r < 4; ++r) {
    if (blockIdx.x == 0) out[0] = r;   // RACE
    else out[1] += out[0];   // RACE
  }
}

int main() {
  int *out;
  unsigned *u, *in;
  cudaMalloc(&out, 64 * sizeof(int));
  cudaMalloc(&u, 128 * sizeof(unsigned));
  cudaMalloc(&in, 4096 * sizeof(unsigned));
  unsigned h[4096];
  for (int i = 0; i < 4096; ++i) h[i] = i * 2654435761u;
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, 64 * sizeof(int));
  after_warp_sync<<<1, 32>>>(out);
  own_change<<<1, 64>>>(out);
  bins<<<1, 64>>>(u, in, 4096);
  across_blocks<<<2, 1>>>(out);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
