// Race-free: thread 0 reads, then after __syncthreads threads 0 and 1 both do
// atomicAdd_block on the same word. The published HiRace table reports a race
// here; there is none (the read is ordered before both atomics by the barrier,
// and block-scope atomics of one block do not race with each other).
__global__ void litmus(int *out) {
  __shared__ int s[1];
  if (threadIdx.x == 0) s[0] = 0;
  __syncthreads();
  if (threadIdx.x == 0) out[1] = s[0];
  __syncthreads();
  if (threadIdx.x < 2) atomicAdd_block(&s[0], 1);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = s[0];
}
int main() {
  int *d, h = 0;
  cudaMalloc(&d, 2 * sizeof(int));
  litmus<<<1, 32>>>(d);
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  return h == 2 ? 0 : 1;
}
