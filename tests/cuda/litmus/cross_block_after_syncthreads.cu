// Litmus 2 (HiRace paper): __syncthreads orders the threads of one block only.
// Block 0 writes g[0], every block passes a barrier, block 1 reads g[0].
// Expected: one read-write race on g[0], global memory, different blocks,
// between line 8 (read, block 1) and line 6 (write, block 0).
__global__ void litmus(int *g, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) g[0] = 7;  // RACE
  __syncthreads();
  if (blockIdx.x == 1 && threadIdx.x == 0) out[0] = g[0];  // RACE
}
int main() {
  int *g, *o;
  cudaMalloc(&g, sizeof(int));
  cudaMalloc(&o, sizeof(int));
  litmus<<<2, 32>>>(g, o);
  cudaDeviceSynchronize();
  return 0;
}
