#include "corpus_util.h"
// Label propagation: every node takes the minimum label of its neighbours until nothing changes.
__global__ void propagate(const int *row, const int *col, int *label, int n, int *changed) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= n) return;
  for (int e = row[u]; e < row[u + 1]; ++e) {
    int lv = label[col[e]];
    if (lv < atomicMin(&label[u], lv)) *changed = 1;
  }
}
static int find(int *p, int x) { while (p[x] != x) x = p[x] = p[p[x]]; return x; }
int main() {
  Csr g = random_graph(800, 1);
  int *label = (int *)malloc(g.n * sizeof(int)), *par = (int *)malloc(g.n * sizeof(int));
  for (int i = 0; i < g.n; ++i) label[i] = par[i] = i;
  for (int u = 0; u < g.n; ++u) for (int e = g.row[u]; e < g.row[u + 1]; ++e) { int a = find(par, u), b = find(par, g.col[e]); if (a != b) par[a < b ? b : a] = a < b ? a : b; }
  int *drow = to_device(g.row, g.n + 1), *dcol = to_device(g.col, g.m), *dl = to_device(label, g.n), *dch;
  CK(cudaMalloc(&dch, sizeof(int)));
  for (;;) {
    int changed = 0;
    CK(cudaMemcpy(dch, &changed, sizeof(int), cudaMemcpyHostToDevice));
    propagate<<<(g.n + 255) / 256, 256>>>(drow, dcol, dl, g.n, dch);
    CK(cudaMemcpy(&changed, dch, sizeof(int), cudaMemcpyDeviceToHost));
    if (!changed) break;
  }
  to_host(label, dl, g.n);
  bool ok = true; int comps = 0;
  for (int i = 0; i < g.n; ++i) { ok &= label[i] == find(par, i); comps += label[i] == i; }
  return verdict("connected_components", ok, comps);
}
