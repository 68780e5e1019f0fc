#include "corpus_util.h"
// Level-synchronous BFS: one kernel per level, host loops until the frontier is empty.
__global__ void bfs_level(const int *row, const int *col, int *dist, int n, int level, int *changed) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= n || dist[u] != level) return;
  for (int e = row[u]; e < row[u + 1]; ++e) {
    int v = col[e];
    if (dist[v] == -1) { dist[v] = level + 1; *changed = 1; }
  }
}
int main() {
  Csr g = random_graph(600, 2);
  int *dist = (int *)malloc(g.n * sizeof(int)), *ref = (int *)malloc(g.n * sizeof(int));
  for (int i = 0; i < g.n; ++i) dist[i] = ref[i] = -1;
  dist[0] = ref[0] = 0;
  int *q = (int *)malloc(g.n * sizeof(int)), qh = 0, qt = 0;
  q[qt++] = 0;
  while (qh < qt) { int u = q[qh++]; for (int e = g.row[u]; e < g.row[u + 1]; ++e) if (ref[g.col[e]] < 0) { ref[g.col[e]] = ref[u] + 1; q[qt++] = g.col[e]; } }
  int *drow = to_device(g.row, g.n + 1), *dcol = to_device(g.col, g.m), *ddist = to_device(dist, g.n), *dch;
  CK(cudaMalloc(&dch, sizeof(int)));
  for (int level = 0;; ++level) {
    int changed = 0;
    CK(cudaMemcpy(dch, &changed, sizeof(int), cudaMemcpyHostToDevice));
    bfs_level<<<(g.n + 127) / 128, 128>>>(drow, dcol, ddist, g.n, level, dch);
    CK(cudaMemcpy(&changed, dch, sizeof(int), cudaMemcpyDeviceToHost));
    if (!changed) break;
  }
  to_host(dist, ddist, g.n);
  bool ok = true; unsigned long long s = 0;
  for (int i = 0; i < g.n; ++i) { ok &= dist[i] == ref[i]; s = s * 5 + (dist[i] + 1); }
  return verdict("bfs_csr", ok, s);
}
