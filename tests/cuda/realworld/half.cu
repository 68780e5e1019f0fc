// Half precision as public samples use it: half2 products, shuffles of half2, conversions.
#include <cuda_fp16.h>
#include <cstdio>
__global__ void k(half2 *a, float *out) {
  half2 v = a[threadIdx.x];
  half2 s = __hmul2(v, v);
  for (int o = 16; o > 0; o /= 2) { s = __hadd2(s, __shfl_down_sync(0xffffffff, s, o)); }
  if (threadIdx.x == 0) out[0] = __low2float(s) + __high2float(s);
  if (threadIdx.x == 0) { half h = __float2half(0.1f); out[1] = __half2float(h); out[2] = __half2float(__float2half(65504.f * 2)); }
}
int main() {
  half2 *a; float *o; cudaMallocManaged(&a, 32 * sizeof(half2)); cudaMallocManaged(&o, 12);
  for (int i = 0; i < 32; ++i) a[i] = __floats2half2_rn(i * 0.25f, 1.0f);
  k<<<1, 32>>>(a, o); cudaDeviceSynchronize();
  printf("%.4f %.8f %f\n", o[0], o[1], o[2]);
}
