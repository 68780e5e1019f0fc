// A kernel template instantiated for 1-, 3- and 16-byte elements (as alignedTypes does): each thread
// copies its own element, so there is no race whatever the element's size.
#include <cstdio>
struct RGB { unsigned char r, g, b; };
template <class T> __global__ void copy(T *o, const T *i, int n) {
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += blockDim.x * gridDim.x) o[p] = i[p];
}
template <class T> int run(int n) {
  T *a, *b;
  cudaMallocManaged(&a, n * sizeof(T));
  cudaMallocManaged(&b, n * sizeof(T));
  for (int k = 0; k < n; ++k) reinterpret_cast<unsigned char *>(a)[k * sizeof(T)] = (unsigned char)k;
  copy<<<2, 64>>>(b, a, n);
  cudaDeviceSynchronize();
  int s = reinterpret_cast<unsigned char *>(b)[(n - 1) * sizeof(T)];
  cudaFree(a);
  cudaFree(b);
  return s;
}
int main() { printf("%d %d %d\n", run<unsigned char>(300), run<RGB>(300), run<uint4>(300)); }
