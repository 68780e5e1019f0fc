// Device helpers shared by multi_main.cu (a user header: it is instrumented too).
#pragma once
struct SoA { float *x; float *y; int n; };
__device__ inline float load_x(const SoA &s, int i) { return s.x[i]; }
__device__ inline void store_y(SoA s, int i, float v) { s.y[i] = v; }
template <typename T>
__global__ void scale(T *out, const T *in, T f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * f;
}
