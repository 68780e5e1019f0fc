#include <cstdio>
#include "check_helpers.h"
int *make_counter();

__global__ void bump(int *c) { *c += 1; }   // RACE: every thread

int main() {
  int *c = make_counter();
  bump<<<1, 32>>>(c);
  int h = 0;
  checkErrors(cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost));
  printf("count %d\n", h > 0);
  return 0;
}
