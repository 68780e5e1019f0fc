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
// The emulated device's memory: CUDAEMU_DEVICE_MB caps what device allocations may hold at once
// (unset: no cap beyond the host's), so that a run meets a small GPU's limit; host allocations
// (cudaMallocHost, cudaHostAlloc) do not count. What the program leaves allocated goes back with
// its static data (DeviceMemoryRelease below), as a process's memory goes at exit: a row host
// (instrument/compile/row_host.py) that unloads the program built as a library keeps none of it.
struct DeviceMemory {
  size_t cap = ~size_t(0), used = 0;
  std::map<void *, size_t> sizes;   // the device allocations, by address
  std::map<void *, void *> raw;     // what calloc returned for each (its start, aligned, is the address)
  std::mutex m;
  bool released = false;            // what was left has gone back: a later free of it is a no-op
  DeviceMemory() {
    if (const char *v = std::getenv(::cctk::env::kCudaemuDeviceMb); v && *v) cap = size_t(std::strtoull(v, nullptr, 10)) << 20;
  }
};
inline DeviceMemory &device_memory() {
  static DeviceMemory *d = new DeviceMemory;   // never destroyed: a free after the release finds it
  return *d;
}
// `whole_pages`: pages of its own, as the host sees them (pinned memory, always; managed memory): a tool that
// closes such pages to the host while the device may use them (hirace/host_access.h) closes nothing else.
inline void *device_alloc(size_t n, bool device = true, bool whole_pages = false) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE)), align = device && !whole_pages ? 256 : page;
  if (n > ~size_t(0) - 2 * align) return nullptr;
  size_t bytes = (n + align - 1) / align * align;
  if (!bytes) bytes = align;
  DeviceMemory &d = device_memory();
  std::lock_guard<std::mutex> hold(d.m);
  if (device && (bytes > d.cap || d.used > d.cap - bytes)) return nullptr;
  if (!device) {
    void *p = std::aligned_alloc(align, bytes);
    if (p) std::memset(p, 0, bytes);
    return p;
  }
  // zeroed by calloc, which leaves pages fresh from the system untouched (a tool's large shadows cost
  // no page until used), aligned to 256 bytes as cudaMalloc's are (or to a page)
  void *r = std::calloc(1, bytes + align);
  if (!r) return nullptr;
  void *p = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(r) + align) & ~uintptr_t(align - 1));
  d.used += bytes;
  d.sizes[p] = bytes;
  d.raw[p] = r;
  return p;
}
inline void device_free(void *p) {
  if (!p) return;
  DeviceMemory &d = device_memory();
  {
    std::lock_guard<std::mutex> hold(d.m);
    auto it = d.sizes.find(p);
    if (it != d.sizes.end()) {
      d.used -= it->second;
      d.sizes.erase(it);
      auto r = d.raw.find(p);
      void *start = r->second;
      d.raw.erase(r);
      std::free(start);
      return;
    } else if (d.released) {
      return;
    }
  }
  std::free(p);
}
// Made when the program loads, so destroyed after every exit handler the program or a tool's
// runtime registers while it runs (their reads of device memory come first).
struct DeviceMemoryRelease {
  DeviceMemoryRelease() { device_memory(); }
  ~DeviceMemoryRelease() {
    DeviceMemory &d = device_memory();
    std::lock_guard<std::mutex> hold(d.m);
    for (auto &kv : d.raw) std::free(kv.second);
    d.sizes.clear();
    d.raw.clear();
    d.used = 0;
    d.released = true;
  }
};
inline DeviceMemoryRelease g_device_memory_release;
}  // namespace cudaemu::detail
// Stream capture (graphs.h): on a capturing stream these calls add a node to its graph (true) instead.
namespace cudaemu::graphs {
inline bool capture_copy(cudaStream_t s, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height);
inline bool capture_set(cudaStream_t s, void *p, size_t pitch, unsigned value, unsigned elem, size_t width,
                        size_t height);
inline bool capture_host(cudaStream_t s, cudaHostFn_t fn, void *data);
inline bool capture_record(cudaEvent_t e, cudaStream_t s);   // (also forgets a capture the event was recorded in)
inline bool capture_wait(cudaStream_t s, cudaEvent_t e);
}  // namespace cudaemu::graphs

// (the 3D copies' descriptions: graphs.h's memcpy nodes take them)
inline cudaPos make_cudaPos(size_t x, size_t y, size_t z) { return cudaPos{x, y, z}; }
inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) { return cudaExtent{w, h, d}; }
inline cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz) { return cudaPitchedPtr{d, p, xsz, ysz}; }

inline cudaError_t cudaMalloc(void **p, size_t n) {
  if (!p) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  *p = ::cudaemu::detail::device_alloc(n);
  return *p ? cudaSuccess : ::cudaemu::detail::record(cudaErrorMemoryAllocation);
}
template <class T> inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc(reinterpret_cast<void **>(p), n); }
inline cudaError_t cudaMallocManaged(void **p, size_t n, unsigned = cudaMemAttachGlobal) {
  if (!p) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  *p = ::cudaemu::detail::device_alloc(n, /*device=*/true, /*whole_pages=*/true);
  return *p ? cudaSuccess : ::cudaemu::detail::record(cudaErrorMemoryAllocation);
}
template <class T> inline cudaError_t cudaMallocManaged(T **p, size_t n, unsigned f = cudaMemAttachGlobal) {
  return cudaMallocManaged(reinterpret_cast<void **>(p), n, f);
}
inline cudaError_t cudaMallocHost(void **p, size_t n) {
  if (!p) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  *p = ::cudaemu::detail::device_alloc(n, /*device=*/false);
  return *p ? cudaSuccess : ::cudaemu::detail::record(cudaErrorMemoryAllocation);
}
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t n) { return cudaMallocHost(reinterpret_cast<void **>(p), n); }
inline cudaError_t cudaMallocHost(void **p, size_t n, unsigned) { return cudaMallocHost(p, n); }
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t n, unsigned) {
  return cudaMallocHost(reinterpret_cast<void **>(p), n);
}
inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned) { return cudaMallocHost(p, n); }
template <class T> inline cudaError_t cudaHostAlloc(T **p, size_t n, unsigned) { return cudaMallocHost(reinterpret_cast<void **>(p), n); }
inline cudaError_t cudaFree(void *p) { ::cudaemu::detail::device_free(p); return cudaSuccess; }
inline cudaError_t cudaFreeHost(void *p) { ::cudaemu::detail::device_free(p); return cudaSuccess; }
// Stream-ordered allocation (allocated and freed at once: the emulation runs every operation when it is issued)
inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t) { return cudaMalloc(p, n); }
template <class T> inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t s) {
  return cudaMallocAsync(reinterpret_cast<void **>(p), n, s);
}
inline cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t, cudaStream_t s) {
  return cudaMallocAsync(p, n, s);
}
template <class T> inline cudaError_t cudaMallocFromPoolAsync(T **p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
  return cudaMallocFromPoolAsync(reinterpret_cast<void **>(p), n, pool, s);
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t) { return cudaFree(p); }
inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device) {
  if (!pool) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  if (device != 0) return ::cudaemu::detail::record(cudaErrorInvalidDevice);
  static char the_pool;
  *pool = reinterpret_cast<cudaMemPool_t>(&the_pool);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind) {
  if (n && (!dst || !src)) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  std::memmove(dst, src, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind k, cudaStream_t s = nullptr) {
  if (::cudaemu::graphs::capture_copy(s, dst, n, src, n, n, 1)) return cudaSuccess;
  return cudaMemcpy(dst, src, n, k);
}
inline cudaError_t cudaMemset(void *p, int v, size_t n) {
  if (n && !p) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  std::memset(p, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s = nullptr) {
  if (::cudaemu::graphs::capture_set(s, p, n, unsigned(v), 1, n, 1)) return cudaSuccess;
  return cudaMemset(p, v, n);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &sym, const void *src, size_t n, size_t off = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  if (off + n > sizeof(T)) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  std::memcpy(reinterpret_cast<char *>(const_cast<T *>(&sym)) + off, src, n);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T &sym, const void *src, size_t n, size_t off = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t s = nullptr) {
  if (off + n > sizeof(T)) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  if (::cudaemu::graphs::capture_copy(s, reinterpret_cast<char *>(const_cast<T *>(&sym)) + off, n, src, n, n, 1))
    return cudaSuccess;
  return cudaMemcpyToSymbol(sym, src, n, off, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n, size_t off = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  if (off + n > sizeof(T)) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  std::memcpy(dst, reinterpret_cast<const char *>(&sym) + off, n);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &sym, size_t n, size_t off = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t s = nullptr) {
  if (off + n > sizeof(T)) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  if (::cudaemu::graphs::capture_copy(s, dst, n, reinterpret_cast<const char *>(&sym) + off, n, n, 1)) return cudaSuccess;
  return cudaMemcpyFromSymbol(dst, sym, n, off, kind);
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
#define CUDAEMU_ERROR_NAME(name, value, text) case name: return #name;
    CUDACOMMON_ERRORS(CUDAEMU_ERROR_NAME)
#undef CUDAEMU_ERROR_NAME
  }
  return "cudaErrorUnknown";
}
inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
#define CUDAEMU_ERROR_TEXT(name, value, text) case name: return text;
    CUDACOMMON_ERRORS(CUDAEMU_ERROR_TEXT)
#undef CUDAEMU_ERROR_TEXT
  }
  return "unknown error";
}
inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : ::cudaemu::detail::record(cudaErrorInvalidDevice); }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d) {
  if (!p) return ::cudaemu::detail::record(cudaErrorInvalidValue);
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
  p->concurrentManagedAccess = 1;
  p->canMapHostMemory = 1;
  p->cooperativeLaunch = 1;
  p->concurrentKernels = 1;
  p->computeMode = cudaComputeModeDefault;
  p->l2CacheSize = 4 << 20;
  p->memoryClockRate = 1000000;
  p->memoryBusWidth = 256;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->regsPerMultiprocessor = 65536;
  p->memPitch = 2147483647;
  p->textureAlignment = 512;
  p->asyncEngineCount = 1;
  p->hostRegisterSupported = 1;
  p->pageableMemoryAccess = 1;
  p->directManagedMemAccessFromHost = 1;
  p->memoryPoolsSupported = 1;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreate(cudaStream_t *s) { *s = new CUstream_st{1}; return cudaSuccess; }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) { return cudaStreamCreate(s); }
inline cudaError_t cudaStreamDestroy(cudaStream_t s) { if (s) delete s; return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = new CUevent_st{std::chrono::steady_clock::now()}; return cudaSuccess; }
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { return cudaEventCreate(e); }
inline cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr) {
  if (::cudaemu::graphs::capture_record(e, s)) return cudaSuccess;
  e->t = std::chrono::steady_clock::now();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = std::chrono::duration<float, std::milli>(b->t - a->t).count();
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
inline cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
inline cudaError_t cudaDeviceSetLimit(cudaLimit, size_t) { return cudaSuccess; }
inline cudaError_t cudaMemGetInfo(size_t *f, size_t *t) {
  ::cudaemu::detail::DeviceMemory &d = ::cudaemu::detail::device_memory();
  std::lock_guard<std::mutex> hold(d.m);
  if (d.cap == ~size_t(0)) {   // no cap: fixed numbers (a program that prints them prints the same each run)
    *f = size_t(8) << 30;
    *t = size_t(16) << 30;
  } else {
    *t = d.cap;
    *f = d.cap - d.used;
  }
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaFuncSetAttribute(T *, cudaFuncAttribute, int) { return cudaSuccess; }
template <class T> inline cudaError_t cudaFuncSetCacheConfig(T *, cudaFuncCache) { return cudaSuccess; }
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T, int block, size_t) {
  *n = block > 0 ? 2048 / block : 0;
  return cudaSuccess;
}

// Each attribute reads the property it names, so the two calls always agree.
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d) {
  cudaDeviceProp p;
  if (!v) return ::cudaemu::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = cudaGetDeviceProperties(&p, d)) return e;
  switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = int(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: *v = int(p.totalConstMem); break;
    case cudaDevAttrWarpSize: *v = p.warpSize; break;
    case cudaDevAttrMaxPitch: *v = int(p.memPitch); break;
    case cudaDevAttrMaxRegistersPerBlock: *v = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *v = p.clockRate; break;
    case cudaDevAttrTextureAlignment: *v = int(p.textureAlignment); break;
    case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
    case cudaDevAttrIntegrated: *v = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *v = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *v = p.computeMode; break;
    case cudaDevAttrConcurrentKernels: *v = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: *v = p.ECCEnabled; break;
    case cudaDevAttrMemoryClockRate: *v = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: *v = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *v = p.unifiedAddressing; break;
    case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *v = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *v = p.managedMemory; break;
    case cudaDevAttrPageableMemoryAccess: *v = p.pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: *v = p.concurrentManagedAccess; break;
    case cudaDevAttrCooperativeLaunch: *v = p.cooperativeLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrHostRegisterSupported: *v = p.hostRegisterSupported; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: *v = p.directManagedMemAccessFromHost; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMemoryPoolsSupported: *v = p.memoryPoolsSupported; break;
    default: *v = 0; break;
  }
  return cudaSuccess;
}
inline cudaError_t cudaDriverGetVersion(int *v) { *v = CUDART_VERSION; return cudaSuccess; }
inline cudaError_t cudaRuntimeGetVersion(int *v) { *v = CUDART_VERSION; return cudaSuccess; }
inline cudaError_t cudaSetDeviceFlags(unsigned) { return cudaSuccess; }
inline cudaError_t cudaGetDeviceFlags(unsigned *f) { *f = 0; return cudaSuccess; }
inline cudaError_t cudaChooseDevice(int *d, const cudaDeviceProp *) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaDeviceGetLimit(size_t *v, cudaLimit l) {
  *v = l == cudaLimitStackSize ? 1024 : l == cudaLimitPrintfFifoSize ? (1u << 20) : (8u << 20);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceCanAccessPeer(int *can, int, int) { *can = 0; return cudaSuccess; }
inline cudaError_t cudaDeviceEnablePeerAccess(int, unsigned) {
  return ::cudaemu::detail::record(cudaErrorPeerAccessUnsupported);
}
inline cudaError_t cudaDeviceDisablePeerAccess(int) { return ::cudaemu::detail::record(cudaErrorPeerAccessNotEnabled); }
// host memory is device memory here: registering and mapping change nothing
inline cudaError_t cudaHostRegister(void *p, size_t, unsigned) {
  return p ? cudaSuccess : ::cudaemu::detail::record(cudaErrorInvalidValue);
}
inline cudaError_t cudaHostUnregister(void *) { return cudaSuccess; }
inline cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned) { *d = h; return cudaSuccess; }
template <class T> inline cudaError_t cudaHostGetDevicePointer(T **d, void *h, unsigned f) {
  return cudaHostGetDevicePointer(reinterpret_cast<void **>(d), h, f);
}
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p) {
  a->type = cudaMemoryTypeDevice;
  a->device = 0;
  a->devicePointer = const_cast<void *>(p);
  a->hostPointer = const_cast<void *>(p);
  return cudaSuccess;
}
inline cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
  *pitch = (width + 511) / 512 * 512;
  return cudaMalloc(p, *pitch * height);
}
template <class T> inline cudaError_t cudaMallocPitch(T **p, size_t *pitch, size_t w, size_t h) {
  return cudaMallocPitch(reinterpret_cast<void **>(p), pitch, w, h);
}
inline cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                size_t height, cudaMemcpyKind) {
  if (width > dpitch || width > spitch) return ::cudaemu::detail::record(cudaErrorInvalidPitchValue);
  for (size_t r = 0; r < height; ++r)
    std::memmove(static_cast<char *>(dst) + r * dpitch, static_cast<const char *>(src) + r * spitch, width);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DAsync(void *dst, size_t dp, const void *src, size_t sp, size_t w, size_t h,
                                     cudaMemcpyKind k, cudaStream_t s = nullptr) {
  if (w > dp || w > sp) return ::cudaemu::detail::record(cudaErrorInvalidPitchValue);
  if (::cudaemu::graphs::capture_copy(s, dst, dp, src, sp, w, h)) return cudaSuccess;
  return cudaMemcpy2D(dst, dp, src, sp, w, h, k);
}
inline cudaError_t cudaMemset2D(void *p, size_t pitch, int v, size_t width, size_t height) {
  for (size_t r = 0; r < height; ++r) std::memset(static_cast<char *>(p) + r * pitch, v, width);
  return cudaSuccess;
}
inline cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t width, size_t height, cudaStream_t s = nullptr) {
  if (::cudaemu::graphs::capture_set(s, p, pitch, unsigned(v), 1, width, height)) return cudaSuccess;
  return cudaMemset2D(p, pitch, v, width, height);
}
inline cudaError_t cudaMemcpyPeer(void *dst, int, const void *src, int, size_t n) {
  return cudaMemcpy(dst, src, n, cudaMemcpyDefault);
}
inline cudaError_t cudaMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t n, cudaStream_t s = nullptr) {
  if (::cudaemu::graphs::capture_copy(s, dst, n, src, n, n, 1)) return cudaSuccess;
  return cudaMemcpyPeer(dst, dd, src, sd, n);
}
inline cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t = nullptr) { return cudaSuccess; }
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned, int) { return cudaStreamCreate(s); }
inline cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}
// Work is done when it is issued (synchronous semantics): streams and events are always complete,
// and a stream's callbacks run at once, in issue order.
inline cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned = 0) {
  ::cudaemu::graphs::capture_wait(s, e);
  return cudaSuccess;
}
inline cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *data, unsigned) {
  cb(s, cudaSuccess, data);
  return cudaSuccess;
}
inline cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *data) {
  if (::cudaemu::graphs::capture_host(s, fn, data)) return cudaSuccess;
  fn(data);
  return cudaSuccess;
}
inline cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void *, size_t = 0, unsigned = cudaMemAttachSingle) {
  return cudaSuccess;
}
inline cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaProfilerStart() { return cudaSuccess; }
inline cudaError_t cudaProfilerStop() { return cudaSuccess; }
template <class T> inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, T *) {
  std::memset(a, 0, sizeof *a);
  a->maxThreadsPerBlock = 1024;
  a->maxDynamicSharedSizeBytes = 48 * 1024;
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block, T, size_t = 0, int limit = 0) {
  *block = limit > 0 && limit < 1024 ? limit : 1024;
  *min_grid = 2;
  return cudaSuccess;
}

#endif  // CUDAEMU_API_H
