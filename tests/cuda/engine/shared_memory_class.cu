// The samples' SharedMemory<T> (a class whose conversion operators return the extern __shared__
// array): `sdata` points into shared memory, so the kernel writes global memory only through `out`,
// and its reads of `in` get a bounds check only where no written argument points into in's buffer
// (instrument/intervals.py shared_pointers, instrument/readonly_params.py). Launch 1 races with
// nothing; launch 2 passes one buffer as in and out: block 1 writes in[1] (line 24) while block 0
// reads it (line 19), a race hirace must report.
#include <cstdio>

template <class T> struct SharedMemory {
  __device__ inline operator T *() { extern __shared__ int __smem[]; return (T *)__smem; }
};
template <class T> __device__ T warp_sum(T v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
template <class T> __global__ void reduce(const T *in, T *out, unsigned n) {
  T *sdata = SharedMemory<T>();
  T v = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  v = warp_sum<T>(v);
  if (threadIdx.x % 32 == 0) sdata[threadIdx.x / 32] = v;
  __syncthreads();
  T s = 0;
  if (threadIdx.x == 0) { for (unsigned w = 0; w < blockDim.x / 32; ++w) s += sdata[w]; out[blockIdx.x] = s; }
}

int main() {
  int *in, *out, h[1024], r[4];
  for (int i = 0; i < 1024; ++i) h[i] = 1;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof r);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  reduce<int><<<4, 64, 2 * sizeof(int)>>>(in, out, 1024);
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  printf("sum %d\n", r[0] + r[1] + r[2] + r[3]);
  reduce<int><<<4, 64, 2 * sizeof(int)>>>(in, in, 1024);
  cudaDeviceSynchronize();
  cudaFree(in);
  cudaFree(out);
  return 0;
}
