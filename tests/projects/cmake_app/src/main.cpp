#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "vecops.h"

// app scale|histogram N: runs one of the library's kernels on 0..N-1 and prints a checksum
int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: app scale|histogram N\n");
    return 2;
  }
  int n = std::atoi(argv[2]);
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i;
  int *d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  if (std::strcmp(argv[1], "scale") == 0) {
    scale_on_device(d, n);
    cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost);
    long long sum = 0;
    for (int v : h) sum += v;
    std::printf("scale: sum %lld\n", sum);
  } else {
    std::vector<int> bins(histogram_bins());
    histogram_on_device(d, n, bins.data());
    for (int b : bins) std::printf("%d ", b);
    std::printf("\n");
  }
  cudaFree(d);
  return 0;
}
