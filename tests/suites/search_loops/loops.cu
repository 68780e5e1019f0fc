// cltc search's loop distances (tests/test_cltc_search.py): its one test (width 1032) runs the doubling
// loop many times; the loop's other cases need a width the search's changes of a number seldom make:
// once only at width 1002 (s = 1 passes, s = 2 ends it), 0 times at a width of at most 1001. The
// distance of the loop's condition at an entry's second test (how far `s < width - 1000` was from
// false) leads the distance-guided step there.
#include <cstdio>
#include <cstdlib>

__global__ void doubling(int *out, int width) {
  int acc = 0;
  for (int s = 1; s < width - 1000; s *= 2) acc += s;
  out[threadIdx.x] = acc;
}

int main(int argc, char **argv) {
  int width = argc > 1 ? std::atoi(argv[1]) : 1032;
  int *d, h[4];
  cudaMalloc(&d, sizeof h);
  doubling<<<1, 4>>>(d, width);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("%d\n", h[0]);
  cudaFree(d);
  return 0;
}
