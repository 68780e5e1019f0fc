// cudaemu host-side runtime API subset (synchronous semantics).
// Included by cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_API_H
#define CUDAEMU_API_H

namespace cudaemu::detail {
inline CUstream_st g_default_stream{0};
inline cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) g_last_error = e;
  return e;
}
inline void *device_alloc(size_t n) {
  size_t bytes = (n + 255) / 256 * 256;
  void *p = std::aligned_alloc(256, bytes ? bytes : 256);
  if (p) std::memset(p, 0, bytes ? bytes : 256);
  return p;
}
}  // namespace cudaemu::detail

inline cudaError_t cudaMalloc(void **p, size_t n) {
  if (!p) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  *p = ::cudaemu::detail::device_alloc(n);
  return *p ? cudaSuccess : ::cudaemu::detail::record(cudaErrorMemoryAllocation);
}
template <class T> inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc(reinterpret_cast<void **>(p), n); }
inline cudaError_t cudaMallocManaged(void **p, size_t n, unsigned = cudaMemAttachGlobal) { return cudaMalloc(p, n); }
template <class T> inline cudaError_t cudaMallocManaged(T **p, size_t n, unsigned f = cudaMemAttachGlobal) {
  return cudaMallocManaged(reinterpret_cast<void **>(p), n, f);
}
inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t n) { return cudaMalloc(reinterpret_cast<void **>(p), n); }
inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned) { return cudaMalloc(p, n); }
template <class T> inline cudaError_t cudaHostAlloc(T **p, size_t n, unsigned) { return cudaMalloc(reinterpret_cast<void **>(p), n); }
inline cudaError_t cudaFree(void *p) { std::free(p); return cudaSuccess; }
inline cudaError_t cudaFreeHost(void *p) { std::free(p); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind) {
  if (n && (!dst || !src)) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  std::memmove(dst, src, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind k, cudaStream_t = nullptr) {
  return cudaMemcpy(dst, src, n, k);
}
inline cudaError_t cudaMemset(void *p, int v, size_t n) {
  if (n && !p) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  std::memset(p, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t = nullptr) { return cudaMemset(p, v, n); }
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &sym, const void *src, size_t n, size_t off = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  if (off + n > sizeof(T)) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  std::memcpy(reinterpret_cast<char *>(const_cast<T *>(&sym)) + off, src, n);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n, size_t off = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  if (off + n > sizeof(T)) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  std::memcpy(dst, reinterpret_cast<const char *>(&sym) + off, n);
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaGetSymbolAddress(void **p, const T &sym) {
  *p = const_cast<T *>(&sym);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaThreadSynchronize() { return cudaSuccess; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaGetLastError() {
  cudaError_t e = ::cudaemu::detail::g_last_error;
  ::cudaemu::detail::g_last_error = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError() { return ::cudaemu::detail::g_last_error; }
inline const char *cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    default: return "cudaErrorUnknown";
  }
}
inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    default: return "unknown error";
  }
}
inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : ::cudaemu::detail::record(cudaErrorInvalidDevice); }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d) {
  if (d != 0) return ::cudaemu::detail::record(cudaErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "cudaemu (cpu backend)");
  p->totalGlobalMem = size_t(16) << 30;
  p->sharedMemPerBlock = 48 * 1024;
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->totalConstMem = 64 * 1024;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024; p->maxThreadsDim[1] = 1024; p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647; p->maxGridSize[1] = 65535; p->maxGridSize[2] = 65535;
  p->major = 9; p->minor = 0;
  p->multiProcessorCount = 1;
  p->maxThreadsPerMultiProcessor = 2048;
  p->maxBlocksPerMultiProcessor = 32;
  p->clockRate = 1000000;
  p->unifiedAddressing = 1;
  p->managedMemory = 1;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreate(cudaStream_t *s) { *s = new CUstream_st{1}; return cudaSuccess; }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) { return cudaStreamCreate(s); }
inline cudaError_t cudaStreamDestroy(cudaStream_t s) { if (s) delete s; return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = new CUevent_st{std::chrono::steady_clock::now()}; return cudaSuccess; }
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { return cudaEventCreate(e); }
inline cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = nullptr) { e->t = std::chrono::steady_clock::now(); return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = std::chrono::duration<float, std::milli>(b->t - a->t).count();
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
inline cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
inline cudaError_t cudaDeviceSetLimit(cudaLimit, size_t) { return cudaSuccess; }
inline cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { *f = size_t(8) << 30; *t = size_t(16) << 30; return cudaSuccess; }
template <class T> inline cudaError_t cudaFuncSetAttribute(T *, cudaFuncAttribute, int) { return cudaSuccess; }
template <class T> inline cudaError_t cudaFuncSetCacheConfig(T *, cudaFuncCache) { return cudaSuccess; }
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T, int block, size_t) {
  *n = block > 0 ? 2048 / block : 0;
  return cudaSuccess;
}

#endif  // CUDAEMU_API_H
