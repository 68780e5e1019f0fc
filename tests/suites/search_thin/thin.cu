// cltc search's thin suite (tests/test_cltc_search.py): its one test (n 8, rounds 1, key 5) misses
// branch arms and loop cases that inputs near it reach, one arm only a key of 4242 reaches (the
// distance-guided step: how far `key == 4242` is from true), and one arm no input reaches
// (`r > 3`: a remainder of 4 is at most 3). With 0 rounds the program prints nan (0 / 0.0).
#include <cstdio>
#include <cstdlib>

__global__ void thin(int *out, int n, int rounds, int key) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int acc = 0;
  if (rounds > 2) acc += 10;
  if (rounds < 0) acc -= 1;
  for (int k = 0; k < rounds; ++k) acc += k;
  if (key == 4242) acc += 100;
  int r = (i * 7 + key) % 4;
  if (r > 3) acc = -1;
  out[i] = acc;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 8;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 1;
  int key = argc > 3 ? std::atoi(argv[3]) : 5;
  if (n < 1 || n > 4096) {
    std::printf("n must be 1..4096\n");
    return 1;
  }
  int *d, *h = (int *)std::malloc(n * sizeof(int));
  cudaMalloc(&d, n * sizeof(int));
  thin<<<(n + 31) / 32, 32>>>(d, n, rounds, key);
  cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  long total = 0;
  for (int i = 0; i < n; ++i) total += h[i];
  std::printf("total %ld per round %f\n", total, (double)total / (double)rounds);
  cudaFree(d);
  std::free(h);
  return 0;
}
