// Litmus 1 (HiRace paper): a read and a write by two threads of one block with
// no barrier between them. Expected: one read-write race on data[0], shared
// memory, between line 8 (write by thread 1) and line 7 (read by thread 0).
__global__ void litmus(int *out) {
  __shared__ int data[1];
  if (threadIdx.x == 0) data[0] = 0;   // initialised by thread 0 itself: program order
  if (threadIdx.x == 0) out[0] = data[0];  // RACE
  if (threadIdx.x == 1) data[0] = 42;  // RACE
}
int main() {
  int *d;
  cudaMalloc(&d, sizeof(int));
  litmus<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  return 0;
}
