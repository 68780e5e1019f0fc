// Kernels shared by the stream programs: each thread touches its own element (no race inside a launch).
#pragma once
#include <cstdio>
#include <cuda_runtime.h>

constexpr int N = 256;

__global__ void fill(int *a, int v) { a[blockIdx.x * blockDim.x + threadIdx.x] = v; }
__global__ void scale(int *a, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = a[i] * k;
}
__global__ void copy_into(int *dst, const int *src) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  dst[i] = src[i];
}
__global__ void add_one(int *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] += 1;
}
