// For PARSING ONLY (cuda_decls.h includes it): the CUDA language as clang must see it without a
// toolkit: the headers nvcc's cuda_runtime.h brings in implicitly, the qualifiers and nvcc's macros,
// vector types, the built-in variables, barriers and fences, warp collectives, atomics, intrinsics and
// math, the device versions of host C library functions, address-space and SIMD intrinsics.
#ifndef CUDAPARSE_LANGUAGE_DECLS_H
#define CUDAPARSE_LANGUAGE_DECLS_H

// What nvcc's cuda_runtime.h brings in implicitly: programs call fabs, malloc,
// memcpy, INT_MAX, printf and assert without including these themselves.
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __cplusplus
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>
#endif

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
// a __shared__ object whose class has a constructor, which clang refuses: the parser spells its
// __shared__ so (instrument/frontend/parse.py), an annotation the query reads as __shared__
#define __shrobj__ __attribute__((annotate("hirace_shared")))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((device))  // managed memory is device memory to the tools
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __maxnreg__(n)   // (a register cap: nothing the tools read)
#define __local_maxnreg__(n)
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __CUDACC__ 1
#define __CUDA_ARCH_PARSE__ 1
#define __grid_constant__
#define CUDART_CB
#define __CUDA_ARCH_LIST__ 900
// gcc's own headers (omp.h) write __attribute__((__malloc__(f, 1))), which clang 18 rejects
#define __malloc__(...) __malloc__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 8
#define __NVCC__ 1

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
template <class T> __device__ T __reduce_min_sync(unsigned mask, T v);
template <class T> __device__ T __reduce_max_sync(unsigned mask, T v);
template <class T> __device__ T __reduce_and_sync(unsigned mask, T v);
template <class T> __device__ T __reduce_or_sync(unsigned mask, T v);
template <class T> __device__ T __reduce_xor_sync(unsigned mask, T v);

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

template <class T> __device__ T __ldg(const T *p);
// the cache-hinted loads and stores
template <class T> __device__ T __ldcg(const T *p);
template <class T> __device__ T __ldca(const T *p);
template <class T> __device__ T __ldcs(const T *p);
template <class T> __device__ T __ldlu(const T *p);
template <class T> __device__ T __ldcv(const T *p);
template <class T> __device__ void __stwb(T *p, T v);
template <class T> __device__ void __stcg(T *p, T v);
template <class T> __device__ void __stcs(T *p, T v);
template <class T> __device__ void __stwt(T *p, T v);
__host__ __device__ int min(int, int);
__host__ __device__ int max(int, int);
__host__ __device__ unsigned min(unsigned, unsigned);
__host__ __device__ unsigned max(unsigned, unsigned);
__host__ __device__ long long min(long long, long long);
__host__ __device__ long long max(long long, long long);
__host__ __device__ unsigned long long min(unsigned long long, unsigned long long);
__host__ __device__ unsigned long long max(unsigned long long, unsigned long long);
__host__ __device__ int min(int, unsigned);
__host__ __device__ int min(unsigned, int);
__host__ __device__ int max(int, unsigned);
__host__ __device__ int max(unsigned, int);
__host__ __device__ long min(long, long);
__host__ __device__ long max(long, long);
__host__ __device__ unsigned long min(unsigned long, unsigned long);
__host__ __device__ unsigned long max(unsigned long, unsigned long);
__host__ __device__ long long min(long long, unsigned long long);
__host__ __device__ long long max(long long, unsigned long long);
__host__ __device__ long long min(unsigned long long, long long);
__host__ __device__ long long max(unsigned long long, long long);
__host__ __device__ double min(float, double);
__host__ __device__ double min(double, float);
__host__ __device__ double max(float, double);
__host__ __device__ double max(double, float);
__device__ unsigned umin(unsigned, unsigned);
__device__ unsigned umax(unsigned, unsigned);
__device__ long long llmin(long long, long long);
__device__ long long llmax(long long, long long);
__device__ unsigned long long ullmin(unsigned long long, unsigned long long);
__device__ unsigned long long ullmax(unsigned long long, unsigned long long);
__device__ int __umul24(unsigned, unsigned);
__device__ void *operator new(size_t, void *) noexcept;
__device__ void *operator new(size_t);
__device__ void *operator new[](size_t);
__device__ void operator delete(void *) noexcept;
__device__ void operator delete[](void *) noexcept;
__host__ __device__ float min(float, float);
__host__ __device__ float max(float, float);
__host__ __device__ double min(double, double);
__host__ __device__ double max(double, double);
__host__ __device__ float rsqrtf(float);
__host__ __device__ double rsqrt(double);
extern "C" __device__ void __trap();

// Host C library functions that device code calls too: the real headers declare device
// versions beside the host ones (overloads on __host__/__device__).
__device__ int printf(const char *, ...);
__device__ void *malloc(size_t);
__device__ void free(void *);
__device__ void *memcpy(void *, const void *, size_t);
__device__ void *memset(void *, int, size_t);
#ifdef NDEBUG   // (<assert.h> then declares none; CCCL declares it for host and device, as here)
extern "C" __host__ __device__ void __assert_fail(const char *, const char *, unsigned int, const char *) noexcept
    __attribute__((__noreturn__));
#else   // (beside <assert.h>'s host declaration)
__device__ void __assert_fail(const char *, const char *, unsigned int, const char *);
#endif
__device__ clock_t clock();
#define CUDAPARSE_MATH_F1(N) __device__ float N##f(float); __device__ double N(double);
#define CUDAPARSE_MATH_F2(N) __device__ float N##f(float, float); __device__ double N(double, double);
CUDAPARSE_MATH_F1(sqrt) CUDAPARSE_MATH_F1(cbrt) CUDAPARSE_MATH_F1(exp) CUDAPARSE_MATH_F1(exp2)
CUDAPARSE_MATH_F1(exp10) CUDAPARSE_MATH_F1(expm1) CUDAPARSE_MATH_F1(log) CUDAPARSE_MATH_F1(log2)
CUDAPARSE_MATH_F1(log10) CUDAPARSE_MATH_F1(log1p) CUDAPARSE_MATH_F1(sin) CUDAPARSE_MATH_F1(cos)
CUDAPARSE_MATH_F1(tan) CUDAPARSE_MATH_F1(asin) CUDAPARSE_MATH_F1(acos) CUDAPARSE_MATH_F1(atan)
CUDAPARSE_MATH_F1(sinh) CUDAPARSE_MATH_F1(cosh) CUDAPARSE_MATH_F1(tanh) CUDAPARSE_MATH_F1(asinh)
CUDAPARSE_MATH_F1(acosh) CUDAPARSE_MATH_F1(atanh) CUDAPARSE_MATH_F1(fabs) CUDAPARSE_MATH_F1(floor)
CUDAPARSE_MATH_F1(ceil) CUDAPARSE_MATH_F1(round) CUDAPARSE_MATH_F1(trunc) CUDAPARSE_MATH_F1(rint)
CUDAPARSE_MATH_F1(nearbyint) CUDAPARSE_MATH_F1(erf) CUDAPARSE_MATH_F1(erfc) CUDAPARSE_MATH_F1(erfinv)
CUDAPARSE_MATH_F1(lgamma) CUDAPARSE_MATH_F1(tgamma) CUDAPARSE_MATH_F1(logb) CUDAPARSE_MATH_F1(sinpi)
CUDAPARSE_MATH_F1(cospi) CUDAPARSE_MATH_F1(normcdf) CUDAPARSE_MATH_F1(normcdfinv) CUDAPARSE_MATH_F1(rcbrt)
CUDAPARSE_MATH_F2(pow) CUDAPARSE_MATH_F2(atan2) CUDAPARSE_MATH_F2(fmin) CUDAPARSE_MATH_F2(fmax)
CUDAPARSE_MATH_F2(fmod) CUDAPARSE_MATH_F2(remainder) CUDAPARSE_MATH_F2(copysign) CUDAPARSE_MATH_F2(hypot)
CUDAPARSE_MATH_F2(fdim) CUDAPARSE_MATH_F2(nextafter)
#undef CUDAPARSE_MATH_F1
#undef CUDAPARSE_MATH_F2
__device__ float fmaf(float, float, float);
__device__ double fma(double, double, double);
__device__ float ldexpf(float, int);
__device__ double ldexp(double, int);
__device__ float frexpf(float, int *);
__device__ double frexp(double, int *);
__device__ float modff(float, float *);
__device__ double modf(double, double *);
__device__ void sincosf(float, float *, float *);
__device__ void sincos(double, double *, double *);
__device__ void sincospif(float, float *, float *);
__device__ long lroundf(float);
__device__ long long llroundf(float);
__device__ long lrintf(float);
__device__ int ilogbf(float);
__device__ float scalbnf(float, int);
__device__ int abs(int);
__device__ long labs(long);
__device__ long long llabs(long long);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __log2f(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __tanf(float);
__device__ float __powf(float, float);
__device__ void __sincosf(float, float *, float *);
__device__ float __fadd_rn(float, float);
__device__ float __fsub_rn(float, float);
__device__ float __fmul_rn(float, float);
__device__ float __fdiv_rn(float, float);
__device__ float __fmaf_rn(float, float, float);
__device__ float __fsqrt_rn(float);
__device__ float __frcp_rn(float);
__device__ double __dadd_rn(double, double);
__device__ double __dmul_rn(double, double);
__device__ double __fma_rn(double, double, double);
__device__ unsigned __float2uint_rn(float);
__device__ unsigned __float2uint_rz(float);
__device__ float __uint2float_rn(unsigned);
__device__ int __double2int_rn(double);
__device__ double __int2double_rn(int);
__device__ float __ll2float_rn(long long);
__device__ unsigned __byte_perm(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_l(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_r(unsigned, unsigned, unsigned);
__device__ unsigned __sad(int, int, unsigned);
__device__ unsigned __usad(unsigned, unsigned, unsigned);
__device__ int __hadd(int, int);
__device__ int __rhadd(int, int);
__device__ unsigned __uhadd(unsigned, unsigned);
__device__ void __nanosleep(unsigned);
__device__ unsigned __lanemask_lt();
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
__device__ long long __mul64hi(long long, long long);
template <class T> __device__ unsigned __match_all_sync(unsigned mask, T v, int *pred);
// address-space conversions and SIMD-in-a-word arithmetic (CUB and libcu++ call them)
__device__ size_t __cvta_generic_to_shared(const void *);
__device__ size_t __cvta_generic_to_global(const void *);
__device__ size_t __cvta_generic_to_constant(const void *);
__device__ size_t __cvta_generic_to_local(const void *);
__device__ void *__cvta_shared_to_generic(size_t);
__device__ void *__cvta_global_to_generic(size_t);
__device__ void *__cvta_constant_to_generic(size_t);
__device__ void *__cvta_local_to_generic(size_t);
__device__ unsigned __isShared(const void *);
__device__ unsigned __isGlobal(const void *);
__device__ unsigned __isClusterShared(const void *);   // (sm_90: libcu++ asks it in the device pass's reading)
__device__ unsigned __isConstant(const void *);
__device__ unsigned __isLocal(const void *);
#define CUDAPARSE_SIMD(NAME) __device__ unsigned NAME##2(unsigned, unsigned); __device__ unsigned NAME##4(unsigned, unsigned);
CUDAPARSE_SIMD(__vmins) CUDAPARSE_SIMD(__vminu) CUDAPARSE_SIMD(__vmaxs) CUDAPARSE_SIMD(__vmaxu)
CUDAPARSE_SIMD(__vadd) CUDAPARSE_SIMD(__vsub) CUDAPARSE_SIMD(__vabsdiffs) CUDAPARSE_SIMD(__vabsdiffu)
#undef CUDAPARSE_SIMD

#endif  // CUDAPARSE_LANGUAGE_DECLS_H
