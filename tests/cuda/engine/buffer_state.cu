// A buffer's check state only from the first launch that may write it (runtime hirace/host_buffer_state.h,
// planner hirace/proofs/readonly_params.py `writes`): `big` is only ever read, so it never gets a shadow;
// `gather` and `racy` write nowhere but through their parameters; `racy` races on cost[0] (line 17).
// With `loaded`, `through` writes x through a pointer it loads (line 22): every buffer is checked, and
// its race on x[0] is found; with `shifted`, `shift` gets a pointer into y's redzone (`y - 1`) and
// writes y[0] through it (line 27): every buffer is checked there too.
#include <cstdio>
#include <cstring>

__global__ void gather(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * 64] + 1;
}

__global__ void racy(int *cost, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cost[i < 2 ? 0 : i] = in[i];
}

__global__ void through(int **table, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) table[0][i < 2 ? 0 : i] = i;
}

__global__ void shift(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i < 2 ? 1 : i + 1] = i;
}

int main(int argc, char **argv) {
  const int n = 64, words = 1 << 20;
  int *big, *out, *cost, *x, *y, **table;
  cudaMalloc(&big, words * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  cudaMalloc(&cost, n * sizeof(int));
  cudaMalloc(&x, n * sizeof(int));
  cudaMalloc(&y, n * sizeof(int));
  cudaMalloc(&table, sizeof(int *));
  cudaMemset(big, 0, words * sizeof(int));
  cudaMemcpy(table, &x, sizeof(int *), cudaMemcpyHostToDevice);
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "loaded")) {
    through<<<2, 32>>>(table, n);
  } else if (!strcmp(what, "shifted")) {
    shift<<<2, 32>>>(y - 1, n);
  } else {
    gather<<<2, 32>>>(big, out, n);
    racy<<<2, 32>>>(cost, out, n);
  }
  int h[n];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h[3]);
  return 0;
}
