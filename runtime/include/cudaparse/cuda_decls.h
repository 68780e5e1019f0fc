// Declarations of the CUDA language built-ins and runtime API, for PARSING ONLY.
//
// The instrument/ engine parses .cu files with libclang in CUDA mode
// (-x cuda --cuda-host-only -nocudainc -nocudalib).  The libclang wheel ships
// no clang resource headers, so clang's own CUDA wrapper headers are missing;
// this header stands in for them.  It declares (never defines) what CUDA
// programs use so that every machine, with or without a CUDA toolkit, builds
// the same syntax tree.  Programs are compiled with nvcc (gpu backend) or
// against runtime/include/cudaemu (cpu backend), never against this file.
#ifndef CUDAPARSE_CUDA_DECLS_H
#define CUDAPARSE_CUDA_DECLS_H

#include <stddef.h>

// C library functions that device code calls (printf, sqrtf, malloc) are the
// host headers' own: in a --cuda-host-only parse clang defers wrong-side call
// diagnostics to device code generation, which a parse never reaches.

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((device))  // managed memory is device memory to the tools
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __CUDACC__ 1
#define __CUDA_ARCH_PARSE__ 1
#define CUDART_VERSION 12000

// ---------------------------------------------------------------- vector types
#define CUDAPARSE_VEC(T, N)                                                         \
  struct N##1 { T x; };                                                           \
  struct N##2 { T x, y; };                                                        \
  struct N##3 { T x, y, z; };                                                     \
  struct __align__(16) N##4 { T x, y, z, w; };                                    \
  __host__ __device__ N##1 make_##N##1(T x);                                      \
  __host__ __device__ N##2 make_##N##2(T x, T y);                                 \
  __host__ __device__ N##3 make_##N##3(T x, T y, T z);                            \
  __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w);
CUDAPARSE_VEC(signed char, char)
CUDAPARSE_VEC(unsigned char, uchar)
CUDAPARSE_VEC(short, short)
CUDAPARSE_VEC(unsigned short, ushort)
CUDAPARSE_VEC(int, int)
CUDAPARSE_VEC(unsigned int, uint)
CUDAPARSE_VEC(long, long)
CUDAPARSE_VEC(unsigned long, ulong)
CUDAPARSE_VEC(long long, longlong)
CUDAPARSE_VEC(unsigned long long, ulonglong)
CUDAPARSE_VEC(float, float)
CUDAPARSE_VEC(double, double)
#undef CUDAPARSE_VEC

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1);
  __host__ __device__ dim3(uint3 v);
  __host__ __device__ operator uint3() const;
};

extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

// ---------------------------------------------------------------- barriers, fences
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ void __threadfence_system();
__device__ unsigned __activemask();

// ---------------------------------------------------------------- warp collectives
template <class T> __device__ T __shfl_sync(unsigned mask, T v, int src, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32);
__device__ unsigned __ballot_sync(unsigned mask, int pred);
__device__ int __any_sync(unsigned mask, int pred);
__device__ int __all_sync(unsigned mask, int pred);
template <class T> __device__ unsigned __match_any_sync(unsigned mask, T v);
template <class T> __device__ T __reduce_add_sync(unsigned mask, T v);

// ---------------------------------------------------------------- atomics
#define CUDAPARSE_ATOMIC_ALL_SCOPES(R, NAME, ...)                                   \
  __device__ R NAME(__VA_ARGS__);                                                 \
  __device__ R NAME##_block(__VA_ARGS__);                                         \
  __device__ R NAME##_system(__VA_ARGS__);
#define CUDAPARSE_ATOMIC_T(NAME, T) CUDAPARSE_ATOMIC_ALL_SCOPES(T, NAME, T *addr, T val)
#define CUDAPARSE_ATOMIC_INTS(NAME)                                                 \
  CUDAPARSE_ATOMIC_T(NAME, int)                                                   \
  CUDAPARSE_ATOMIC_T(NAME, unsigned int)                                          \
  CUDAPARSE_ATOMIC_T(NAME, unsigned long long)                                    \
  CUDAPARSE_ATOMIC_T(NAME, long long)
CUDAPARSE_ATOMIC_INTS(atomicAdd)
CUDAPARSE_ATOMIC_T(atomicAdd, float)
CUDAPARSE_ATOMIC_T(atomicAdd, double)
CUDAPARSE_ATOMIC_INTS(atomicSub)
CUDAPARSE_ATOMIC_INTS(atomicExch)
CUDAPARSE_ATOMIC_T(atomicExch, float)
CUDAPARSE_ATOMIC_INTS(atomicMin)
CUDAPARSE_ATOMIC_INTS(atomicMax)
CUDAPARSE_ATOMIC_INTS(atomicAnd)
CUDAPARSE_ATOMIC_INTS(atomicOr)
CUDAPARSE_ATOMIC_INTS(atomicXor)
CUDAPARSE_ATOMIC_T(atomicInc, unsigned int)
CUDAPARSE_ATOMIC_T(atomicDec, unsigned int)
CUDAPARSE_ATOMIC_ALL_SCOPES(int, atomicCAS, int *addr, int cmp, int val)
CUDAPARSE_ATOMIC_ALL_SCOPES(unsigned int, atomicCAS, unsigned int *addr, unsigned int cmp, unsigned int val)
CUDAPARSE_ATOMIC_ALL_SCOPES(unsigned long long, atomicCAS, unsigned long long *addr,
                            unsigned long long cmp, unsigned long long val)
CUDAPARSE_ATOMIC_ALL_SCOPES(unsigned short, atomicCAS, unsigned short *addr, unsigned short cmp,
                            unsigned short val)
#undef CUDAPARSE_ATOMIC_INTS
#undef CUDAPARSE_ATOMIC_T
#undef CUDAPARSE_ATOMIC_ALL_SCOPES

// ---------------------------------------------------------------- intrinsics and math
__device__ int __popc(unsigned);
__device__ int __popcll(unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ unsigned __brev(unsigned);
__device__ unsigned long long __brevll(unsigned long long);
__device__ int __mul24(int, int);
__device__ int __mulhi(int, int);
__device__ unsigned __umulhi(unsigned, unsigned);
__device__ float __fdividef(float, float);
__device__ float __saturatef(float);
__device__ float __int_as_float(int);
__device__ int __float_as_int(float);
__device__ unsigned __float_as_uint(float);
__device__ float __uint_as_float(unsigned);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);
__device__ int __float2int_rn(float);
__device__ int __float2int_rz(float);
__device__ float __int2float_rn(int);
__device__ long long clock64();
__device__ int clock();
template <class T> __device__ T __ldg(const T *p);
__host__ __device__ int min(int, int);
__host__ __device__ int max(int, int);
__host__ __device__ unsigned min(unsigned, unsigned);
__host__ __device__ unsigned max(unsigned, unsigned);
__host__ __device__ long long min(long long, long long);
__host__ __device__ long long max(long long, long long);
__host__ __device__ unsigned long long min(unsigned long long, unsigned long long);
__host__ __device__ unsigned long long max(unsigned long long, unsigned long long);
__host__ __device__ float min(float, float);
__host__ __device__ float max(float, float);
__host__ __device__ double min(double, double);
__host__ __device__ double max(double, double);
__host__ __device__ float rsqrtf(float);
__host__ __device__ double rsqrt(double);
extern "C" __device__ void __trap();
#define assert(e) ((void)0)

// ---------------------------------------------------------------- runtime API
enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
                 cudaErrorInvalidDevice = 101, cudaErrorNoDevice = 100, cudaErrorLaunchFailure = 719,
                 cudaErrorUnknown = 999 };
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
enum cudaFuncCache { cudaFuncCachePreferNone, cudaFuncCachePreferShared, cudaFuncCachePreferL1,
                     cudaFuncCachePreferEqual };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
                         cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault, cudaSharedMemBankSizeFourByte,
                           cudaSharedMemBankSizeEightByte };
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaHostAllocDefault 0x00
#define cudaMemAttachGlobal 0x01

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerMultiprocessor, totalConstMem, memPitch;
  int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  int major, minor, multiProcessorCount, maxThreadsPerMultiProcessor, memoryClockRate,
      memoryBusWidth, l2CacheSize, concurrentKernels, ECCEnabled, unifiedAddressing,
      managedMemory, cooperativeLaunch, maxBlocksPerMultiProcessor;
};

extern "C" {
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned flags = cudaMemAttachGlobal);
cudaError_t cudaMallocHost(void **p, size_t n);
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags);
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind,
                            cudaStream_t s = 0);
cudaError_t cudaMemset(void *p, int v, size_t n);
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s = 0);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev);
cudaError_t cudaGetDevice(int *dev);
cudaError_t cudaSetDevice(int dev);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig c);
cudaError_t cudaDeviceSetLimit(int limit, size_t value);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shm = 0, cudaStream_t s = 0);
}
template <class T> cudaError_t cudaMalloc(T **p, size_t n);
template <class T> cudaError_t cudaMallocManaged(T **p, size_t n, unsigned flags = cudaMemAttachGlobal);
template <class T> cudaError_t cudaMallocHost(T **p, size_t n);
template <class T> cudaError_t cudaMemcpyToSymbol(const T &sym, const void *src, size_t n,
                                                  size_t offset = 0,
                                                  cudaMemcpyKind k = cudaMemcpyHostToDevice);
template <class T> cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n,
                                                    size_t offset = 0,
                                                    cudaMemcpyKind k = cudaMemcpyDeviceToHost);
template <class T> cudaError_t cudaFuncSetAttribute(T *f, cudaFuncAttribute a, int v);
template <class T> cudaError_t cudaFuncSetCacheConfig(T *f, cudaFuncCache c);
template <class T> cudaError_t cudaGetSymbolAddress(void **p, const T &sym);
template <class T> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T f, int block,
                                                                             size_t shm);

#endif  // CUDAPARSE_CUDA_DECLS_H
