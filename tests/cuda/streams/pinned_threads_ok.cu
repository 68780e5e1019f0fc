// Host threads, each with its own stream and pinned buffer: copy up, add one, copy back, wait for its stream,
// read. Ordered in every thread. While one thread's copies are not known done their pages are closed to the
// host; another thread's copy, inside a CUDA call, must find its own pages open however the threads
// interleave (host_access.h pages_lock), and no lock of the program or of hirace may share a page with
// pinned memory (cudaemu gives it pages of its own: a lock on a closed page failed its futex call).
#include <thread>
#include <vector>
#include "kernels.h"
constexpr int kThreads = 4, kRounds = 100;
static void work(int id, int *bad) {
  int *d, *h;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMalloc(&d, N * sizeof(int));
  cudaMallocHost(&h, N * sizeof(int));
  for (int i = 0; i < N; ++i) h[i] = id;
  for (int r = 0; r < kRounds; ++r) {
    cudaMemcpyAsync(d, h, N * sizeof(int), cudaMemcpyHostToDevice, s);
    add_one<<<N / 64, 64, 0, s>>>(d);
    cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    *bad += h[N - 1] != id + r + 1;
  }
  cudaFreeHost(h);
  cudaFree(d);
  cudaStreamDestroy(s);
}
int main() {
  int bad[kThreads] = {};
  std::vector<std::thread> ts;
  for (int i = 0; i < kThreads; ++i) ts.emplace_back(work, i, &bad[i]);
  for (std::thread &t : ts) t.join();
  int wrong = 0;
  for (int b : bad) wrong += b;
  printf("%d\n", wrong);
  return 0;
}
