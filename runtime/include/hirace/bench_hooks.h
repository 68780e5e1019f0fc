// Benchmarks only: the stand-ins that bench_switches.h's switches put in place of parts of the
// product code (the quiet forms' slow path, a quiet read, a call at each block's entry), in namespace
// hirace::bench. Each is compiled only where its switch is on; a product build has none of them.
#ifndef HIRACE_BENCH_HOOKS_H
#define HIRACE_BENCH_HOOKS_H

#include "bench_switches.h"
#include "check.h"

namespace hirace {
namespace bench {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: this unit's configuration's own)

#if HIRACE_BENCH_QUIET_SLOW_TRAPS_CHECK_KEPT && defined(__CUDA_ARCH__)
// (HIRACE_BENCH_QUIET_SLOW_TRAPS_CHECK_KEPT: a call of the check that never runs, at each block's
// entry: the quiet paths trap as with HIRACE_BENCH_QUIET_SLOW_TRAPS, but the kernel keeps the
// registers the out-of-line check takes)
CCTK_D inline void never_called_check() {
  if (g_launch.enabled == 0x5eedu) check(nullptr, 4, 0, fsm::kRead);
}
#endif
#if HIRACE_BENCH_QUIET_SLOW_COMPACT_CALL && defined(__CUDA_ARCH__)
// (HIRACE_BENCH_QUIET_SLOW_COMPACT_CALL: an out-of-line call with two arguments, which traps when it
// runs: what a compact slow path would cost the sites)
__noinline__ __device__ bool slow_call(const void *p, unsigned site) {
  if (g_launch.enabled) __trap();
  return p != nullptr && site != 0;
}
#endif
#if HIRACE_BENCH_QUIET_SLOW_HIDDEN_CALL && defined(__CUDA_ARCH__)
// (HIRACE_BENCH_QUIET_SLOW_HIDDEN_CALL: the whole check called from inline assembly, which the
// compiler sees no memory effect in: the program's own loads and stores move across the quiet sites
// as if they were not there)
extern "C" __device__ inline __noinline__ unsigned hirace_hidden_check(unsigned long long p, unsigned size,
                                                                      unsigned site, unsigned kind,
                                                                      unsigned long long base,
                                                                      unsigned long long bytes, unsigned then_write) {
  return check((const void *)p, size, site, fsm::Access(kind), (const volatile void *)base, bytes, then_write != 0)
             ? 1u : 0u;
}
CCTK_D inline void never_called_check() {   // (its arguments unknown: the function keeps its parameters)
  const LaunchState &L = g_launch;
  if (L.enabled == 0x5eedu &&
      hirace_hidden_check((unsigned long long)L.sink_read, L.log_cap, L.slot, L.nranges, (unsigned long long)L.sink_write,
                          L.dynamic_shared, L.smem))
    note_wrapped();
}
__device__ inline bool hidden_check(const void *p, unsigned size, unsigned site, fsm::Access kind,
                                    const volatile void *base, unsigned long long bytes, bool then_write) {
  unsigned ok;
  asm volatile(
      "{\n\t.param .b64 hp0;\n\t.param .b32 hp1;\n\t.param .b32 hp2;\n\t.param .b32 hp3;\n\t"
      ".param .b64 hp4;\n\t.param .b64 hp5;\n\t.param .b32 hp6;\n\t.param .b32 hret;\n\t"
      "st.param.b64 [hp0], %1;\n\tst.param.b32 [hp1], %2;\n\tst.param.b32 [hp2], %3;\n\t"
      "st.param.b32 [hp3], %4;\n\tst.param.b64 [hp4], %5;\n\tst.param.b64 [hp5], %6;\n\t"
      "st.param.b32 [hp6], %7;\n\t"
      "call (hret), hirace_hidden_check, (hp0, hp1, hp2, hp3, hp4, hp5, hp6);\n\t"
      "ld.param.b32 %0, [hret];\n\t}"
      : "=r"(ok)
      : "l"((unsigned long long)p), "r"(size), "r"(site), "r"(unsigned(kind)), "l"((unsigned long long)base),
        "l"(bytes), "r"(then_write ? 1u : 0u));
  return ok != 0;
}
#endif
#if HIRACE_BENCH_QUIET_READ_HOOK
// (HIRACE_BENCH_QUIET_READ_VALUES: a quiet read yields its value: read through the program's own
// address where the test holds, and by an out-of-line function that checks and reads where it does
// not; quiet.h takes rd_bounds and rd_param from here)
template <class T> struct QuietRead {
  T v;
  CCTK_D T operator*() const { return v; }
};
template <class T> __noinline__ __device__ T read_checked(T *p, unsigned site, const volatile void *base,
                                                        unsigned long long bytes) {
  return *checked(p, site, fsm::kRead, g_launch.sink_read, base, bytes);
}
template <class T> CCTK_D inline QuietRead<T> rd_bounds(T *p, unsigned site, const volatile void *base, unsigned long long bytes) {
  return QuietRead<T>{in_declared(p, base, bytes) ? *p : read_checked(p, site, base, bytes)};
}
template <class T> CCTK_D inline QuietRead<T> rd_param(T *p, unsigned site, const volatile void *base, unsigned bit) {
  const LaunchState &L = g_launch;
  unsigned long long a = (unsigned long long)p;
  bool ok = (L.quiet_params >> bit & 1u) && a >= L.quiet_lo[bit] && a + sizeof(T) <= L.quiet_hi[bit];
  return QuietRead<T>{ok ? *p : read_checked(p, site, base, 0)};
}
#endif
// The benchmarks' stand-ins for the whole check of an access whose quiet test failed (quiet.h
// quiet_slow calls this one where a HIRACE_BENCH_QUIET_SLOW_* switch is on).
#if HIRACE_BENCH_QUIET_SLOW_HOOK
template <class T> CCTK_D inline T *quiet_slow(T *p, unsigned site, fsm::Access kind, void *sink,
                                               const volatile void *base, unsigned long long bytes,
                                               bool then_write) {
#if HIRACE_BENCH_QUIET_SLOW_TRAPS || HIRACE_BENCH_QUIET_SLOW_TRAPS_CHECK_KEPT
  __trap();
  return p;
#elif HIRACE_BENCH_QUIET_SLOW_INLINE
  atomicAdd(g_launch.mem_count, 1u);
  return diverted(p, g_launch.sink_write);
#elif HIRACE_BENCH_QUIET_SLOW_COMPACT_CALL
  return slow_call(p, site) ? p : diverted(p, g_launch.sink_write);
#elif HIRACE_BENCH_QUIET_SLOW_HIDDEN_CALL
  return hidden_check(p, sizeof(T), site, kind, base, bytes, then_write) ? p : diverted(p, sink);
#endif
}
#endif

}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace bench
}  // namespace hirace

#endif  // HIRACE_BENCH_HOOKS_H
