// Helpers shared by the corpus programs: error checks, a seeded generator,
// a random CSR graph, and the one-line verdict every program prints.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(call)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      printf("CUDA error: %s (line %d)\n", cudaGetErrorString(e_), __LINE__);        \
      exit(3);                                                                       \
    }                                                                                \
  } while (0)

static unsigned corpus_rng = 12345u;
static inline unsigned rnd() { corpus_rng = corpus_rng * 1664525u + 1013904223u; return corpus_rng >> 8; }

static inline int verdict(const char *name, bool ok, unsigned long long checksum) {
  printf("%s checksum %llu\n%s\n", name, checksum, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

// Undirected random graph in CSR form: each node links to `deg` random others.
struct Csr { int n, m; int *row, *col; };
static inline Csr random_graph(int n, int deg) {
  int m = 2 * n * deg;
  int *src = (int *)malloc(sizeof(int) * m), *dst = (int *)malloc(sizeof(int) * m);
  int e = 0;
  for (int u = 0; u < n; ++u)
    for (int k = 0; k < deg; ++k) {
      int v = rnd() % n;
      src[e] = u; dst[e++] = v;
      src[e] = v; dst[e++] = u;
    }
  Csr g{n, m, (int *)calloc(n + 1, sizeof(int)), (int *)malloc(sizeof(int) * m)};
  for (int i = 0; i < m; ++i) g.row[src[i] + 1]++;
  for (int i = 0; i < n; ++i) g.row[i + 1] += g.row[i];
  int *fill = (int *)calloc(n, sizeof(int));
  for (int i = 0; i < m; ++i) g.col[g.row[src[i]] + fill[src[i]]++] = dst[i];
  free(src); free(dst); free(fill);
  return g;
}

template <class T> static inline T *to_device(const T *h, size_t n) {
  T *d;
  CK(cudaMalloc(&d, n * sizeof(T)));
  CK(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T> static inline void to_host(T *h, const T *d, size_t n) {
  CK(cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost));
}
