// Reads of a struct array's members through a read-only parameter (hirace/proofs/readonly_params.py):
// quiet, their bounds tested against the parameter's buffer, where no written argument shares it.
// Launch 0: thread 8 reads nodes[8], past the array's end (line 11, offsets 64 and 68); launch 1 passes
// one buffer as both, and the reads race with the writes (line 11).
#include <cstdio>

struct Node { int start, count; };

__global__ void degree(const Node *nodes, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = nodes[i].start + nodes[i].count;
}

int main() {
  const int n = 8;
  Node h[n];
  for (int i = 0; i < n; ++i) h[i] = Node{i, 2 * i};
  Node *nodes;
  int *out, hout[2 * n + 2];
  cudaMalloc(&nodes, sizeof h);
  cudaMalloc(&out, sizeof hout);
  cudaMemcpy(nodes, h, sizeof h, cudaMemcpyHostToDevice);
  degree<<<1, 16>>>(nodes, out, n);
  cudaMemcpy(hout, out, (n + 1) * sizeof(int), cudaMemcpyDeviceToHost);
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += hout[i];
  degree<<<1, 16>>>((const Node *)out, out, n);
  cudaDeviceSynchronize();
  printf("sum %ld\n", sum);
  return 0;
}
