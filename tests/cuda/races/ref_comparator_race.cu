#include "harness.h"
// a comparator by reference called on neighbouring pairs that overlap: thread t's second key is thread
// t + 1's first, in one barrier interval (the call is not proved: the comparator checks its accesses)
__device__ inline void comparator(int &a, int &b, int dir) {
  if ((a > b) == dir) {  // RACE
    int t = a;  // RACE
    a = b;  // RACE
    b = t;  // RACE
  }
}
__global__ void swaps(const int *in, int *out, int n) {
  __shared__ int s[65];
  s[threadIdx.x] = in[threadIdx.x] * 7 % 13;
  if (threadIdx.x == 0) s[64] = 0;
  __syncthreads();
  comparator(s[threadIdx.x], s[threadIdx.x + 1], 1);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
__global__ void pairs(const int *in, int *out, int n) {
  __shared__ int s[128];
  s[2 * threadIdx.x] = in[2 * threadIdx.x];
  s[2 * threadIdx.x + 1] = in[2 * threadIdx.x + 1];
  __syncthreads();
  comparator(s[2 * threadIdx.x], s[2 * threadIdx.x + 1], 1);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
int main() {
  Bufs b = setup();
  pairs<<<1, 64>>>(b.in, b.out, b.n);
  swaps<<<1, 64>>>(b.in, b.out, b.n);
  return finish(b);
}
