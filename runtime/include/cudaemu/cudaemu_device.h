// cudaemu device-side functions: atomics, warp collectives, intrinsics, math.
// Included by cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_DEVICE_H
#define CUDAEMU_DEVICE_H

// ------------------------------------------------------------------ atomics
// A block's threads are fibers on one OS thread and blocks run one after
// another, so a plain read-modify-write is atomic here. Every scope
// (_block, _system) has the same meaning on one CPU thread. The spin evidence
// (spin_point, which may switch fibers) comes after the operation, so that a
// checker's hook right before it sees memory as the operation does (hirace's
// record of synchronisation through memory: memory_sync_hooks.h).
#define CUDAEMU_ATOMIC_SCOPES(R, NAME, PARAMS, ARGS)                                        \
  inline R NAME##_block PARAMS { return NAME ARGS; }                                      \
  inline R NAME##_system PARAMS { return NAME ARGS; }
#define CUDAEMU_ATOMIC(NAME, T, EXPR)                                                       \
  inline T NAME(T *a, T v) { T old = *a; *a = (EXPR); ::cudaemu::detail::spin_point(); return old; } \
  CUDAEMU_ATOMIC_SCOPES(T, NAME, (T * a, T v), (a, v))
#define CUDAEMU_ATOMIC_INTS(NAME, EXPR)                                                     \
  CUDAEMU_ATOMIC(NAME, int, EXPR)                                                         \
  CUDAEMU_ATOMIC(NAME, unsigned int, EXPR)                                                \
  CUDAEMU_ATOMIC(NAME, unsigned long long, EXPR)                                          \
  CUDAEMU_ATOMIC(NAME, long long, EXPR)
CUDAEMU_ATOMIC_INTS(atomicAdd, old + v)
CUDAEMU_ATOMIC(atomicAdd, float, old + v)
CUDAEMU_ATOMIC(atomicAdd, double, old + v)
CUDAEMU_ATOMIC_INTS(atomicSub, old - v)
CUDAEMU_ATOMIC(atomicSub, float, old - v)
CUDAEMU_ATOMIC_INTS(atomicExch, v)
CUDAEMU_ATOMIC(atomicExch, float, v)
CUDAEMU_ATOMIC_INTS(atomicMin, (v < old ? v : old))
CUDAEMU_ATOMIC_INTS(atomicMax, (v > old ? v : old))
CUDAEMU_ATOMIC_INTS(atomicAnd, old & v)
CUDAEMU_ATOMIC_INTS(atomicOr, old | v)
CUDAEMU_ATOMIC_INTS(atomicXor, old ^ v)
CUDAEMU_ATOMIC(atomicInc, unsigned int, (old >= v ? 0u : old + 1u))
CUDAEMU_ATOMIC(atomicDec, unsigned int, ((old == 0u || old > v) ? v : old - 1u))
#define CUDAEMU_CAS(T)                                                                      \
  inline T atomicCAS(T *a, T cmp, T v) { T old = *a; if (old == cmp) *a = v; ::cudaemu::detail::spin_point(); return old; } \
  CUDAEMU_ATOMIC_SCOPES(T, atomicCAS, (T * a, T cmp, T v), (a, cmp, v))
CUDAEMU_CAS(int)
CUDAEMU_CAS(unsigned int)
CUDAEMU_CAS(unsigned long long)
CUDAEMU_CAS(unsigned short)
#undef CUDAEMU_CAS
#undef CUDAEMU_ATOMIC_INTS
#undef CUDAEMU_ATOMIC
#undef CUDAEMU_ATOMIC_SCOPES

// fences are where code that polls another block's writes stops: the spin evidence
inline void __threadfence() { ::cudaemu::detail::spin_point(); }
inline void __threadfence_block() { ::cudaemu::detail::spin_point(); }
inline void __threadfence_system() { ::cudaemu::detail::spin_point(); }
template <class T> inline T __ldg(const T *p) { return *p; }
// cache hints mean nothing to the emulation: plain loads and stores
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldcs(const T *p) { return *p; }
template <class T> inline T __ldlu(const T *p) { return *p; }
template <class T> inline T __ldcv(const T *p) { return *p; }
template <class T> inline void __stwb(T *p, T v) { *p = v; }
template <class T> inline void __stcg(T *p, T v) { *p = v; }
template <class T> inline void __stcs(T *p, T v) { *p = v; }
template <class T> inline void __stwt(T *p, T v) { *p = v; }

// ------------------------------------------------------------------ warp collectives
#define CUDAEMU_LANE() (::cudaemu::detail::g_cur->linear % 32)
inline unsigned __activemask() {
  // Lanes are not tracked through divergent branches: this is the set of
  // lanes of the warp that have not exited.
  return ::cudaemu::detail::lane_live_mask(::cudaemu::detail::g_cur->linear / 32);
}
// Warp collectives are macros over functions that take the call site, so
// that deadlock and divergence reports name the user's file and line.
namespace cudaemu::detail {
// The lanes of `mask` meet; each gets the value lane `from` brought (8 bytes at a time for wider
// types: uint4, structs, as cooperative groups shuffle them).
template <class T> inline T warp_pick(unsigned mask, T v, unsigned from, const char *file, int line) {
  if constexpr (sizeof(T) <= 8) {
    return from_bits<T>(warp_meet(mask, to_bits(v), file, line)[from]);
  } else {
    unsigned long long words[(sizeof(T) + 7) / 8] = {};
    std::memcpy(words, &v, sizeof(T));
    for (auto &w : words) w = warp_meet(mask, w, file, line)[from];
    T r;
    std::memcpy(&r, words, sizeof(T));
    return r;
  }
}
}  // namespace cudaemu::detail
template <class T> inline T cudaemu_shfl_impl(const char *file, int line, unsigned mask, T v, int src_lane, int width) {
  unsigned lane = CUDAEMU_LANE();
  unsigned base = lane - lane % unsigned(width);
  unsigned src = base + unsigned(src_lane);
  if (src_lane < 0 || src >= base + unsigned(width)) src = lane;
  return ::cudaemu::detail::warp_pick(mask, v, src, file, line);
}
template <class T> inline T cudaemu_shfl(const char *f, int ln, unsigned mask, T v, int src, int width = 32) {
  return cudaemu_shfl_impl(f, ln, mask, v, ((src % width) + width) % width, width);
}
template <class T> inline T cudaemu_shfl_up(const char *f, int ln, unsigned mask, T v, unsigned d, int width = 32) {
  int l = int(CUDAEMU_LANE() % unsigned(width));
  return cudaemu_shfl_impl(f, ln, mask, v, l - int(d) >= 0 ? l - int(d) : -1, width);
}
template <class T> inline T cudaemu_shfl_down(const char *f, int ln, unsigned mask, T v, unsigned d, int width = 32) {
  int l = int(CUDAEMU_LANE() % unsigned(width));
  return cudaemu_shfl_impl(f, ln, mask, v, l + int(d) < width ? l + int(d) : -1, width);
}
template <class T> inline T cudaemu_shfl_xor(const char *f, int ln, unsigned mask, T v, int m, int width = 32) {
  int l = int(CUDAEMU_LANE() % unsigned(width));
  int s = l ^ m;
  return cudaemu_shfl_impl(f, ln, mask, v, s < width ? s : -1, width);
}
inline unsigned cudaemu_ballot(const char *f, int ln, unsigned mask, int pred) {
  unsigned part = 0;
  const unsigned long long *s = ::cudaemu::detail::warp_meet(mask, pred != 0, f, ln, &part);
  unsigned r = 0;
  for (unsigned i = 0; i < 32; ++i)
    if ((mask & part & (1u << i)) && s[i]) r |= 1u << i;
  return r;
}
inline int cudaemu_all(const char *f, int ln, unsigned mask, int pred) {
  unsigned part = 0;
  const unsigned long long *s = ::cudaemu::detail::warp_meet(mask, pred != 0, f, ln, &part);
  for (unsigned i = 0; i < 32; ++i)
    if ((mask & part & (1u << i)) && !s[i]) return 0;
  return 1;
}
// __reduce_{min,max,and,or,xor}_sync: the lanes of `mask` meet; each gets op over their values
template <class T, class Op> inline T cudaemu_reduce(const char *f, int ln, unsigned mask, T v, Op op) {
  unsigned part = 0;
  const unsigned long long *s = ::cudaemu::detail::warp_meet(mask, ::cudaemu::detail::to_bits(v), f, ln, &part);
  bool first = true;
  T r = v;
  for (unsigned i = 0; i < 32; ++i)
    if (mask & part & (1u << i)) {
      T x = ::cudaemu::detail::from_bits<T>(s[i]);
      r = first ? x : op(r, x);
      first = false;
    }
  return r;
}
template <class T> inline T cudaemu_reduce_add(const char *f, int ln, unsigned mask, T v) {
  unsigned part = 0;
  const unsigned long long *s = ::cudaemu::detail::warp_meet(mask, ::cudaemu::detail::to_bits(v), f, ln, &part);
  T r = 0;
  for (unsigned i = 0; i < 32; ++i)
    if (mask & part & (1u << i)) r += ::cudaemu::detail::from_bits<T>(s[i]);
  return r;
}
#define __shfl_sync(...) cudaemu_shfl(__FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(...) cudaemu_shfl_up(__FILE__, __LINE__, __VA_ARGS__)
#define __shfl_down_sync(...) cudaemu_shfl_down(__FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(...) cudaemu_shfl_xor(__FILE__, __LINE__, __VA_ARGS__)
#define __ballot_sync(...) cudaemu_ballot(__FILE__, __LINE__, __VA_ARGS__)
#define __any_sync(m, p) (cudaemu_ballot(__FILE__, __LINE__, (m), (p)) != 0)
#define __all_sync(...) cudaemu_all(__FILE__, __LINE__, __VA_ARGS__)
#define __reduce_add_sync(...) cudaemu_reduce_add(__FILE__, __LINE__, __VA_ARGS__)
#define __reduce_min_sync(m, v) cudaemu_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return b < a ? b : a; })
#define __reduce_max_sync(m, v) cudaemu_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return a < b ? b : a; })
#define __reduce_and_sync(m, v) cudaemu_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return a & b; })
#define __reduce_or_sync(m, v) cudaemu_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return a | b; })
#define __reduce_xor_sync(m, v) cudaemu_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return a ^ b; })
#undef CUDAEMU_LANE

// ------------------------------------------------------------------ intrinsics
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  unsigned long long r = 0;
  for (int i = 0; i < 64; ++i) r |= ((x >> i) & 1ull) << (63 - i);
  return r;
}
inline int __mul24(int a, int b) { return (a << 8 >> 8) * (b << 8 >> 8); }
inline int __mulhi(int a, int b) { return int((long long)a * b >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return unsigned((unsigned long long)a * b >> 32); }
inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float f) { int x; std::memcpy(&x, &f, 4); return x; }
inline unsigned __float_as_uint(float f) { unsigned x; std::memcpy(&x, &f, 4); return x; }
inline float __uint_as_float(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
inline long long __double_as_longlong(double d) { long long x; std::memcpy(&x, &d, 8); return x; }
inline double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
inline int __float2int_rn(float f) { return int(std::nearbyint(f)); }
inline int __float2int_rz(float f) { return int(f); }
inline float __int2float_rn(int x) { return float(x); }
inline long long clock64() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
// clock() in device code counts cycles of the device (clockRate kHz: 1 GHz here, so
// nanoseconds), as programs that spin for a number of cycles expect; in host code it is the
// C library's processor time.
namespace cudaemu {
inline clock_t clock_now() { return in_kernel() ? clock_t(clock64()) : ::clock(); }
}  // namespace cudaemu
#define clock() ::cudaemu::clock_now()
[[noreturn]] inline void __trap() { ::cudaemu::detail::fault(::cudaemu::kExitEmulationFault, "__trap() called in device code"); }

// ------------------------------------------------------------------ math
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
// umin, llmax, ...: templates with a defaulted parameter, so that a program's own host function of the
// same name and signature (CUDA has only device ones) is preferred instead of clashing.
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline unsigned min(int a, unsigned b) { return min(unsigned(a), b); }
inline unsigned min(unsigned a, int b) { return min(a, unsigned(b)); }
inline unsigned max(int a, unsigned b) { return max(unsigned(a), b); }
inline unsigned max(unsigned a, int b) { return max(a, unsigned(b)); }

inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline double min(float a, double b) { return std::fmin(double(a), b); }
inline double min(double a, float b) { return std::fmin(a, double(b)); }
inline double max(float a, double b) { return std::fmax(double(a), b); }
inline double max(double a, float b) { return std::fmax(a, double(b)); }
template <class = void> inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
template <class = void> inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
template <class = void> inline long long llmin(long long a, long long b) { return a < b ? a : b; }
template <class = void> inline long long llmax(long long a, long long b) { return a > b ? a : b; }
template <class = void> inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
template <class = void> inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// CUDA's device math beyond the C library: same results, computed in the host's precision
inline float sinpif(float x) { return std::sin(float(M_PI) * x); }
inline double sinpi(double x) { return std::sin(M_PI * x); }
inline float cospif(float x) { return std::cos(float(M_PI) * x); }
inline double cospi(double x) { return std::cos(M_PI * x); }
inline void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
inline float normcdff(float x) { return 0.5f * std::erfc(-x * float(M_SQRT1_2)); }
inline double normcdf(double x) { return 0.5 * std::erfc(-x * M_SQRT1_2); }
inline double erfinv(double y) {   // Newton steps from a rational first guess
  if (y <= -1) return -HUGE_VAL;
  if (y >= 1) return HUGE_VAL;
  double w = std::log((1.0 - y) * (1.0 + y)), a = 0.147, t = 2 / (M_PI * a) + w / 2;
  double x = std::copysign(std::sqrt(std::sqrt(t * t - w / a) - t), y);
  for (int i = 0; i < 3; ++i) x -= (std::erf(x) - y) / (2 / std::sqrt(M_PI) * std::exp(-x * x));
  return x;
}
inline float erfinvf(float y) { return float(erfinv(y)); }
inline double normcdfinv(double p) { return M_SQRT2 * erfinv(2 * p - 1); }
inline float normcdfinvf(float p) { return float(M_SQRT2 * erfinv(2.0 * p - 1.0)); }
inline float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __tanf(float x) { return std::tan(x); }
inline void __sincosf(float x, float *s, float *c) { *s = std::sin(x); *c = std::cos(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline unsigned __float2uint_rn(float f) { return unsigned(std::nearbyint(f)); }
inline unsigned __float2uint_rz(float f) { return unsigned(f); }
inline float __uint2float_rn(unsigned x) { return float(x); }
inline int __double2int_rn(double d) { return int(std::nearbyint(d)); }
inline double __int2double_rn(int x) { return double(x); }
inline float __ll2float_rn(long long x) { return float(x); }
inline int __umul24(unsigned a, unsigned b) { return int((a & 0xffffffu) * (b & 0xffffffu)); }
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = (unsigned long long)y << 32 | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= unsigned((v >> (((s >> (4 * i)) & 7u) * 8)) & 0xffu) << (8 * i);
  return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned n) {
  return unsigned((((unsigned long long)hi << 32 | lo) << (n & 31)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned n) {
  return unsigned(((unsigned long long)hi << 32 | lo) >> (n & 31));
}
inline unsigned __sad(int x, int y, unsigned z) { return unsigned(x > y ? x - y : y - x) + z; }
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
inline int __hadd(int a, int b) { return int(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return int(((long long)a + b + 1) >> 1); }
inline unsigned __uhadd(unsigned a, unsigned b) { return unsigned(((unsigned long long)a + b) >> 1); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline void __nanosleep(unsigned) { ::cudaemu::detail::spin_point(); }
inline unsigned __lanemask_lt() { return (1u << (::cudaemu::detail::g_cur->linear % 32)) - 1u; }

#endif  // CUDAEMU_DEVICE_H
