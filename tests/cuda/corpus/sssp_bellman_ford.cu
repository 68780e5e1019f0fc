#include "corpus_util.h"
__global__ void relax(const int *row, const int *col, const int *w, int *dist, int n, int *changed) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= n) return;
  int du = dist[u];
  if (du == 0x3fffffff) return;
  for (int e = row[u]; e < row[u + 1]; ++e) {
    int nd = du + w[e];
    if (nd < atomicMin(&dist[col[e]], nd)) *changed = 1;
  }
}
int main() {
  Csr g = random_graph(500, 3);
  int *w = (int *)malloc(g.m * sizeof(int)), *dist = (int *)malloc(g.n * sizeof(int)), *ref = (int *)malloc(g.n * sizeof(int));
  for (int e = 0; e < g.m; ++e) w[e] = 1 + rnd() % 20;
  for (int i = 0; i < g.n; ++i) dist[i] = ref[i] = 0x3fffffff;
  dist[0] = ref[0] = 0;
  for (bool ch = true; ch;) { ch = false; for (int u = 0; u < g.n; ++u) if (ref[u] < 0x3fffffff) for (int e = g.row[u]; e < g.row[u + 1]; ++e) if (ref[u] + w[e] < ref[g.col[e]]) { ref[g.col[e]] = ref[u] + w[e]; ch = true; } }
  int *drow = to_device(g.row, g.n + 1), *dcol = to_device(g.col, g.m), *dw = to_device(w, g.m), *dd = to_device(dist, g.n), *dch;
  CK(cudaMalloc(&dch, sizeof(int)));
  for (int it = 0; it < g.n; ++it) {
    int changed = 0;
    CK(cudaMemcpy(dch, &changed, sizeof(int), cudaMemcpyHostToDevice));
    relax<<<(g.n + 63) / 64, 64>>>(drow, dcol, dw, dd, g.n, dch);
    CK(cudaMemcpy(&changed, dch, sizeof(int), cudaMemcpyDeviceToHost));
    if (!changed) break;
  }
  to_host(dist, dd, g.n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < g.n; ++i) { ok &= dist[i] == ref[i]; s = s * 7 + (unsigned)dist[i]; }
  return verdict("sssp_bellman_ford", ok, s);
}
