// cudaemu: CUDA's vector types, dim3 and the runtime API's types on the host compiler.
// Included by cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_TYPES_H
#define CUDAEMU_TYPES_H

// ------------------------------------------------------------------ vector types
#define CUDAEMU_VEC(T, N)                                                                   \
  struct N##1 { T x; };                                                                   \
  struct N##2 { T x, y; };                                                                \
  struct N##3 { T x, y, z; };                                                             \
  struct __attribute__((aligned(sizeof(T) * 4 > 16 ? 16 : sizeof(T) * 4))) N##4 { T x, y, z, w; }; \
  inline N##1 make_##N##1(T x) { return N##1{x}; }                                         \
  inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                                 \
  inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }                        \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
CUDAEMU_VEC(signed char, char)
CUDAEMU_VEC(unsigned char, uchar)
CUDAEMU_VEC(short, short)
CUDAEMU_VEC(unsigned short, ushort)
CUDAEMU_VEC(int, int)
CUDAEMU_VEC(unsigned int, uint)
CUDAEMU_VEC(long, long)
CUDAEMU_VEC(unsigned long, ulong)
CUDAEMU_VEC(long long, longlong)
CUDAEMU_VEC(unsigned long long, ulonglong)
CUDAEMU_VEC(float, float)
CUDAEMU_VEC(double, double)
#undef CUDAEMU_VEC

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// ------------------------------------------------------------------ runtime API types
// gridDim and blockDim name the running launch's (state.h), and fields of the API's structures too
// (cudaKernelNodeParams::gridDim): one name for both, defined before the structures.
#define gridDim cudaemu_gridDim
#define blockDim cudaemu_blockDim
#include "../cudacommon/runtime_types.h"
#include "../cudacommon/protocol_core.h"
struct CUstream_st { int id; };
struct CUevent_st { std::chrono::steady_clock::time_point t; };

static constexpr int warpSize = 32;

#endif  // CUDAEMU_TYPES_H
