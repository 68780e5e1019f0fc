// A kernel writes managed memory; the host reads it right after the launch, with no synchronise between
// (through a library template inlined into main: the race names this line, not the library's).
#include <numeric>
#include "kernels.h"
int main() {
  int *m;
  cudaMallocManaged(&m, N * sizeof(int));
  fill<<<N / 64, 64>>>(m, 7);  // RACE
  long first = std::accumulate(m, m + 4, 0L);  // RACE
  cudaDeviceSynchronize();
  printf("%ld\n", first);
  cudaFree(m);
  return 0;
}
