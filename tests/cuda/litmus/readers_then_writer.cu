// Litmus 3 (HiRace paper): two successive readers, then the first reader writes.
// A checker that remembers only the last reader sees "thread 1 writes after
// its own read" and misses the race with thread 2's read; hirace's state
// records that two lanes read in this warp epoch. Expected: one read-write race
// on s[0], shared memory, same warp without __syncwarp, line 11 against line 10.
__global__ void litmus(int *out) {
  __shared__ int s[1];
  int v = 0;
  if (threadIdx.x == 1) v = s[0];
  if (threadIdx.x == 2) v = s[0];  // RACE
  if (threadIdx.x == 1) s[0] = v + 1;  // RACE
  out[threadIdx.x] = v;
}
int main() {
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  litmus<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  return 0;
}
