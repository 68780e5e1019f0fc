// The prior-site slots' memory budget (runtime hirace/host_site_budget.h): `racy` races on a[0] (threads 1
// and 0: lines 13 and 14). With `inplace`, a is 4 MiB, written in place: its shadow (8 MiB) fits hirace's
// budget (2x the program's memory), its slots (16 MiB more) do not, so the first launch's race names the
// earlier access's thread only; the race asks for slots, and the second launch names both sites. With
// `evict`, a and b (512 KiB each) get slots, then c (2 MiB) gets its shadow and takes theirs: the race in
// a's fourth launch names no earlier site, the fifth names it again. With `clean`, a (4 MiB) is written
// without a race: it never gets slots.
#include <cstdio>
#include <cstring>

__global__ void racy(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 1) a[0] = 2.0f;
  else if (i < n) a[i] = a[i] * 3.0f;
}

__global__ void scale(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[(i * 7) % n] = 0.5f;   // (a permutation: no race, and no proof that skips its check)
}

int main(int argc, char **argv) {
  const bool evict = argc > 1 && std::strcmp(argv[1], "evict") == 0;
  const bool clean = argc > 1 && std::strcmp(argv[1], "clean") == 0;
  const int words = evict ? 1 << 17 : 1 << 20;
  float *a, *b = nullptr, *c = nullptr, first = 0;
  cudaMalloc(&a, words * sizeof(float));
  cudaMemset(a, 0, words * sizeof(float));
  if (evict) {
    cudaMalloc(&b, words * sizeof(float));
    cudaMalloc(&c, 4 * words * sizeof(float));
    racy<<<1, 32>>>(a, 32);
    scale<<<1, 32>>>(b, 32);
    scale<<<1, 32>>>(c, 32);
  }
  if (clean) scale<<<1, 32>>>(a, 32);
  for (int launch = 0; launch < (clean ? 0 : 2); ++launch) {
    racy<<<1, 32>>>(a, 32);
    cudaMemcpy(&first, a, sizeof(float), cudaMemcpyDeviceToHost);
  }
  std::printf("%g\n", first);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
