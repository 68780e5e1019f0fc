// Writes that no call and no variable of the access shows. `pointers` writes b[0] through a pointer it
// loads from a local array of pointers (line 16); `destroyed` writes b[0] in the destructor of an object
// that goes out of scope (line 11), and `nested` writes c[0] there too, from a device function's object.
// Each races (every thread writes the word), and each launch passes what its kernel writes: the buffers
// the destructor writes must be checked as well.
#include <cstdio>
#include <cstring>

struct Put {
  int *q;
  __device__ ~Put() { q[0] = threadIdx.x; }
};
__device__ void scoped(int *c) { Put p{c}; }
__global__ void pointers(int *a, int *b) {
  int *p[2] = {a, b};
  p[threadIdx.x < 64][0] = threadIdx.x;
}
__global__ void destroyed(int *a, int *b) { a[threadIdx.x] = 1; Put p{b}; }
__global__ void nested(int *a, int *c) { a[threadIdx.x] = 2; scoped(c); }
template <class T> struct PutT {   // (an implicit instantiation's members are its template's: ~PutT<T>)
  T *q;
  __device__ ~PutT() { q[0] = threadIdx.x; }
};
__global__ void templated(int *a, int *b) { a[threadIdx.x] = 3; PutT<int> p{b}; }

int main(int argc, char **argv) {
  int *a, *b, *c, h = 0;
  cudaMalloc(&a, 64 * sizeof(int));
  cudaMalloc(&b, 64 * sizeof(int));
  cudaMalloc(&c, 64 * sizeof(int));
  const char *what = argc > 1 ? argv[1] : "";
  if (!std::strcmp(what, "pointers")) pointers<<<1, 32>>>(a, b);
  if (!std::strcmp(what, "destroyed")) destroyed<<<1, 32>>>(a, b);
  if (!std::strcmp(what, "nested")) nested<<<1, 32>>>(a, c);
  if (!std::strcmp(what, "templated")) templated<<<1, 32>>>(a, b);
  cudaMemcpy(&h, a, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("%d\n", h);
  return 0;
}
