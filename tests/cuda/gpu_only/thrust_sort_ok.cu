#include "../races/harness.h"
#include <thrust/device_vector.h>
#include <thrust/sort.h>
// Thrust: a kernel of ours fills a device_vector, Thrust sorts it, a kernel of ours reads it
__global__ void fill(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = (n - i) * 7 % 13;
}
__global__ void first_last(const int *a, int n, int *out) { out[0] = a[0] * 100 + a[n - 1]; }
int main() {
  Bufs b = setup();
  thrust::device_vector<int> v(256);
  fill<<<2, 128>>>(thrust::raw_pointer_cast(v.data()), 256);
  thrust::sort(v.begin(), v.end());
  first_last<<<1, 1>>>(thrust::raw_pointer_cast(v.data()), 256, b.out);
  return finish(b);
}
