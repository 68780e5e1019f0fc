// An Indigo-style vertex kernel over a CSR graph without its bounds guard (`if (v < nodes)`):
// threads past the last vertex read nindex past its end and write label past its end. The
// kernel is race-free (each vertex writes its own label).
#include <cstdio>
__global__ void max_neighbor(int nodes, const int *nindex, const int *nlist, int *label) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  int beg = nindex[v];          // line 7
  int end = nindex[v + 1];      // line 8
  int best = v;
  for (int j = beg; j < end; ++j) best = max(best, nlist[j]);   // line 10
  label[v] = best;              // line 11
}
int main() {
  const int nodes = 5, edges = 8;
  int hindex[nodes + 1] = {0, 2, 4, 5, 7, 8};
  int hlist[edges] = {1, 2, 0, 3, 4, 1, 4, 2};
  int *nindex, *nlist, *label;
  cudaMalloc(&nindex, sizeof hindex);
  cudaMalloc(&nlist, sizeof hlist);
  cudaMalloc(&label, nodes * sizeof(int));
  cudaMemcpy(nindex, hindex, sizeof hindex, cudaMemcpyHostToDevice);
  cudaMemcpy(nlist, hlist, sizeof hlist, cudaMemcpyHostToDevice);
  max_neighbor<<<1, 32>>>(nodes, nindex, nlist, label);
  int h[nodes];
  cudaMemcpy(h, label, sizeof h, cudaMemcpyDeviceToHost);
  for (int v = 0; v < nodes; ++v) printf("%d ", h[v]);
  printf("\n");
  return 0;
}
