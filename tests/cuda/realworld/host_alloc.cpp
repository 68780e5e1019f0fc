// Host-only code compiled by the host compiler: it allocates the buffer the kernel races on.
#include <cuda_runtime.h>
#include "check_helpers.h"

int *make_counter() {
  int *p = nullptr;
  checkErrors(cudaMalloc(&p, sizeof(int)));
  checkErrors(cudaMemset(p, 0, sizeof(int)));
  return p;
}
