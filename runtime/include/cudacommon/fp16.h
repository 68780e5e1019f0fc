// Half precision (the API of CUDA's <cuda_fp16.h>) for the parse stand-ins and the cpu backend:
// values are stored as IEEE binary16 bits and computed in float, rounded to nearest even on every
// conversion back, as the GPU's half arithmetic rounds.
#ifndef CUDACOMMON_FP16_H
#define CUDACOMMON_FP16_H

struct __half_raw { unsigned short x; };
struct __half;
__host__ __device__ inline float cudacommon_half_to_float(unsigned short h) {
  unsigned sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {   // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(man & 0x400u)) { man <<= 1; --exp; }
      bits = sign | (exp << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}
__host__ __device__ inline unsigned short cudacommon_float_to_half(float f) {
  unsigned bits;
  __builtin_memcpy(&bits, &f, 4);
  unsigned sign = (bits >> 16) & 0x8000u, exp = (bits >> 23) & 0xffu, man = bits & 0x7fffffu;
  if (exp == 0xff) return (unsigned short)(sign | 0x7c00u | (man ? 0x200u : 0u));
  int e = int(exp) - 127 + 15;
  if (e >= 31) return (unsigned short)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (unsigned short)sign;
    man |= 0x800000u;
    unsigned shift = unsigned(14 - e), half = man >> shift, rest = man & ((1u << shift) - 1u), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1u))) ++half;
    return (unsigned short)(sign | half);
  }
  unsigned half = (unsigned(e) << 10) | (man >> 13), rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return (unsigned short)(sign | half);
}

struct __half {
  unsigned short __x;
  __half() = default;
  __host__ __device__ __half(const __half_raw &r) : __x(r.x) {}
  __host__ __device__ __half(float f) : __x(cudacommon_float_to_half(f)) {}
  __host__ __device__ __half(double f) : __x(cudacommon_float_to_half(float(f))) {}
  __host__ __device__ __half(int i) : __x(cudacommon_float_to_half(float(i))) {}
  __host__ __device__ operator float() const { return cudacommon_half_to_float(__x); }
  __host__ __device__ operator __half_raw() const { return __half_raw{__x}; }
  __host__ __device__ __half &operator+=(const __half &o) { return *this = __half(float(*this) + float(o)); }
  __host__ __device__ __half &operator-=(const __half &o) { return *this = __half(float(*this) - float(o)); }
  __host__ __device__ __half &operator*=(const __half &o) { return *this = __half(float(*this) * float(o)); }
  __host__ __device__ __half &operator/=(const __half &o) { return *this = __half(float(*this) / float(o)); }
};
struct __align__(4) __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half half;
typedef __half2 half2;

__host__ __device__ inline __half operator+(__half a, __half b) { return __half(float(a) + float(b)); }
__host__ __device__ inline __half operator-(__half a, __half b) { return __half(float(a) - float(b)); }
__host__ __device__ inline __half operator*(__half a, __half b) { return __half(float(a) * float(b)); }
__host__ __device__ inline __half operator/(__half a, __half b) { return __half(float(a) / float(b)); }
__host__ __device__ inline __half operator-(__half a) { __half r = a; r.__x ^= 0x8000u; return r; }
__host__ __device__ inline bool operator==(__half a, __half b) { return float(a) == float(b); }
__host__ __device__ inline bool operator!=(__half a, __half b) { return float(a) != float(b); }
__host__ __device__ inline bool operator<(__half a, __half b) { return float(a) < float(b); }
__host__ __device__ inline bool operator>(__half a, __half b) { return float(a) > float(b); }
__host__ __device__ inline bool operator<=(__half a, __half b) { return float(a) <= float(b); }
__host__ __device__ inline bool operator>=(__half a, __half b) { return float(a) >= float(b); }
__host__ __device__ inline __half2 operator+(__half2 a, __half2 b) { return __half2(a.x + b.x, a.y + b.y); }
__host__ __device__ inline __half2 operator-(__half2 a, __half2 b) { return __half2(a.x - b.x, a.y - b.y); }
__host__ __device__ inline __half2 operator*(__half2 a, __half2 b) { return __half2(a.x * b.x, a.y * b.y); }
__host__ __device__ inline __half2 operator/(__half2 a, __half2 b) { return __half2(a.x / b.x, a.y / b.y); }

__host__ __device__ inline __half __float2half(float f) { return __half(f); }
__host__ __device__ inline __half __float2half_rn(float f) { return __half(f); }
// (through float: a double within half a float ulp of a half-way point may round the other way)
__host__ __device__ inline __half __double2half(double d) { return __half(float(d)); }
__host__ __device__ inline double __half2double(__half h) { return double(float(h)); }
__host__ __device__ inline float __half2float(__half h) { return float(h); }
__host__ __device__ inline __half __int2half_rn(int i) { return __half(float(i)); }
__host__ __device__ inline int __half2int_rn(__half h) { return int(__builtin_nearbyintf(float(h))); }
__host__ __device__ inline int __half2int_rz(__half h) { return int(float(h)); }
__host__ __device__ inline __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
__host__ __device__ inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
__host__ __device__ inline float2 __half22float2(__half2 h) { return make_float2(float(h.x), float(h.y)); }
__host__ __device__ inline __half2 __float22half2_rn(float2 f) { return __half2(__half(f.x), __half(f.y)); }
__host__ __device__ inline float __low2float(__half2 h) { return float(h.x); }
__host__ __device__ inline float __high2float(__half2 h) { return float(h.y); }
__host__ __device__ inline __half __low2half(__half2 h) { return h.x; }
__host__ __device__ inline __half __high2half(__half2 h) { return h.y; }
__host__ __device__ inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__host__ __device__ inline __half2 __half2half2(__half a) { return __half2(a, a); }
__host__ __device__ inline __half2 make_half2(__half a, __half b) { return __half2(a, b); }
__host__ __device__ inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__host__ __device__ inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
__host__ __device__ inline __half __hadd(__half a, __half b) { return a + b; }
__host__ __device__ inline __half __hsub(__half a, __half b) { return a - b; }
__host__ __device__ inline __half __hmul(__half a, __half b) { return a * b; }
__host__ __device__ inline __half __hdiv(__half a, __half b) { return a / b; }
__host__ __device__ inline __half __hneg(__half a) { return -a; }
__host__ __device__ inline __half __habs(__half a) { __half r = a; r.__x &= 0x7fffu; return r; }
__host__ __device__ inline __half __hfma(__half a, __half b, __half c) { return __half(float(a) * float(b) + float(c)); }
__host__ __device__ inline __half __hmax(__half a, __half b) { return a < b ? b : a; }
__host__ __device__ inline __half __hmin(__half a, __half b) { return b < a ? b : a; }
__host__ __device__ inline bool __heq(__half a, __half b) { return a == b; }
__host__ __device__ inline bool __hne(__half a, __half b) { return a != b; }
__host__ __device__ inline bool __hlt(__half a, __half b) { return a < b; }
__host__ __device__ inline bool __hle(__half a, __half b) { return a <= b; }
__host__ __device__ inline bool __hgt(__half a, __half b) { return a > b; }
__host__ __device__ inline bool __hge(__half a, __half b) { return a >= b; }
__host__ __device__ inline __half2 __hadd2(__half2 a, __half2 b) { return a + b; }
__host__ __device__ inline __half2 __hsub2(__half2 a, __half2 b) { return a - b; }
__host__ __device__ inline __half2 __hmul2(__half2 a, __half2 b) { return a * b; }
__host__ __device__ inline __half2 __h2div(__half2 a, __half2 b) { return a / b; }
__host__ __device__ inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__host__ __device__ inline __half hsqrt(__half a) { return __half(__builtin_sqrtf(float(a))); }
__host__ __device__ inline __half hexp(__half a) { return __half(__builtin_expf(float(a))); }
__host__ __device__ inline __half hlog(__half a) { return __half(__builtin_logf(float(a))); }
__host__ __device__ inline __half2 h2sqrt(__half2 a) { return __half2(hsqrt(a.x), hsqrt(a.y)); }
__host__ __device__ inline bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
__host__ __device__ inline bool __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u; }
__host__ __device__ inline unsigned short __half_as_ushort(__half h) { return h.__x; }
__host__ __device__ inline __half __ushort_as_half(unsigned short x) { return __half(__half_raw{x}); }

#endif  // CUDACOMMON_FP16_H
