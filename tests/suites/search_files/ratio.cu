// cltc search, NaN and Inf in a file the program writes (tests/test_cltc_search_more.py): it writes
// i / d for each thread to out.txt and prints nothing; its test (d 1) writes finite numbers, d 0 makes
// 0 / 0 (nan) and i / 0 (inf). Its one branch (i > 3, of 4 threads) no input takes: the search spends its budget.
#include <cstdio>
#include <cstdlib>

__global__ void ratio(float *out, int d) {
  int i = threadIdx.x;
  out[i] = (float)i / (float)d;
  if (i > 3) out[i] = -1.0f;
}

int main(int argc, char **argv) {
  int d = argc > 1 ? std::atoi(argv[1]) : 1;
  float *dev, host[4];
  cudaMalloc(&dev, sizeof host);
  ratio<<<1, 4>>>(dev, d);
  cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
  FILE *f = std::fopen("out.txt", "w");
  for (float v : host) std::fprintf(f, "%f\n", v);
  std::fclose(f);
  cudaFree(dev);
  return 0;
}
