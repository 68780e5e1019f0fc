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

// Launches whose writes land where their written arguments do not point (every buffer checked): `made` writes
// b[0] in a constructor (line 34); `fill` through a kernel pointer named `fill`, which points to `back`, which writes
// src[0] (line 51). `hop` moves p from x into y (line 43): out of the buffer its argument points into (out of bounds).
struct Put {
  __device__ Put(int *p, int v) { p[0] = v; }
};
__global__ void made(int *a, int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { Put put(b, i); a[i] = i; }
}
__global__ void hop(int *p, const int *q, long off, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  p += off;
  if (i < n) p[i < 2 ? 0 : i] = q[i];
}
__global__ void fill(int *dst, int *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i] + 1;
}
__global__ void back(int *dst, int *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) src[i < 2 ? 0 : i] = i + 100;
}
static void run(void (*fill)(int *, int *, int), int *dst, int *src, int n) { fill<<<2, 32>>>(dst, src, n); }

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
  } else if (!strcmp(what, "made")) {
    made<<<2, 32>>>(x, y, n);
  } else if (!strcmp(what, "hop")) {
    hop<<<2, 32>>>(x, out, long(y - x), n);
  } else if (!strcmp(what, "named")) {
    cudaMemset(y, 0, n * sizeof(int));
    run(back, x, y, n);
    cudaMemcpy(out, y, n * sizeof(int), cudaMemcpyDeviceToDevice);
  } else {
    gather<<<2, 32>>>(big, out, n);
    racy<<<2, 32>>>(cost, out, n);
  }
  int h[n];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h[3]);
  return 0;
}
