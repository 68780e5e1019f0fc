// Our own helper header in the style many CUDA projects use: its helpers exist only when the
// runtime headers were included first (their include guards), and its error check stringizes
// the call it wraps.
#pragma once
#include <cstdio>
#include <cstdlib>
#ifdef __DRIVER_TYPES_H__
static const char *errorName(cudaError_t e) { return cudaGetErrorName(e); }
#endif
#ifdef __CUDA_RUNTIME_H__
template <typename T> void check(T result, char const *const func, const char *const file, int const line) {
  if (result) {
    fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result, errorName(result), func);
    exit(EXIT_FAILURE);
  }
}
#define checkErrors(val) check((val), #val, __FILE__, __LINE__)
inline int pickDevice() {
  int n = 0, mode = -1, major = 0, sms = 0;
  checkErrors(cudaGetDeviceCount(&n));
  checkErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0));
  checkErrors(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  checkErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  checkErrors(cudaGetDeviceProperties(&prop, 0));
  if (n < 1 || mode == cudaComputeModeProhibited || major != prop.major || sms != prop.multiProcessorCount) return -1;
  checkErrors(cudaSetDevice(0));
  return 0;
}
#endif
