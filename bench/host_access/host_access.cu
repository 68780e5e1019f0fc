// bench/host_access: what watching the host's accesses of managed memory costs (hirace/host_access.h).
// Four phases, each timed: the host reads and writes every element of a managed buffer after a
// synchronise (the usual, ordered program: nothing is closed when it reads); a kernel on a stream writes
// the buffer's first half while the host writes the second (closed pages: the first half's only); a
// kernel writes one word while the host writes the rest of its page (every access faults: a bystander);
// and a racy read of 64 elements after each launch (every access faults and is a race).
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>

constexpr int N = 1 << 14;   // 64 KiB: 16 pages

__global__ void add_one(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1;
}
__global__ void set_first(int *a) {
  if (blockIdx.x == 0 && threadIdx.x == 0) a[0] = 1;
}

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main() {
  int *m;
  cudaMallocManaged(&m, N * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  long sum = 0;
  double t0 = now();
  for (int it = 0; it < 200; ++it) {   // ordered
    add_one<<<N / 256, 256>>>(m, N);
    cudaDeviceSynchronize();
    for (int i = 0; i < N; ++i) sum += m[i]++;
  }
  double t1 = now();
  for (int it = 0; it < 200; ++it) {   // disjoint halves
    add_one<<<N / 512, 256, 0, s>>>(m, N / 2);
    for (int i = N / 2; i < N; ++i) m[i] += 2;
    cudaStreamSynchronize(s);
  }
  double t2 = now();
  for (int it = 0; it < 20; ++it) {    // the same page, other bytes
    set_first<<<1, 32, 0, s>>>(m);
    for (int i = 1; i < 1024; ++i) m[i] += 3;
    cudaStreamSynchronize(s);
  }
  double t3 = now();
  for (int it = 0; it < 200; ++it) {   // racy reads
    add_one<<<N / 256, 256, 0, s>>>(m, N);
    for (int i = 0; i < 64; ++i) sum += m[i];
    cudaStreamSynchronize(s);
  }
  double t4 = now();
  std::printf("{\"ordered_s\": %.6f, \"disjoint_s\": %.6f, \"same_page_s\": %.6f, \"racy_s\": %.6f, \"sum\": %ld}\n",
              t1 - t0, t2 - t1, t3 - t2, t4 - t3, sum);
  cudaStreamDestroy(s);
  cudaFree(m);
  return 0;
}
