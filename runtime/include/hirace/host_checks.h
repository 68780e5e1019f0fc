// The checks an instrumented header may hold, for a host-only C++ source (.cpp) that includes it: a
// __host__ __device__ function's accesses (hd_rd ...) and libcu++ atomics (lib_* ...), as the host
// runs them: unchecked, exactly as runtime.h's own definitions do outside a kernel on the host
// compiler's pass. On the cpu backend every source is built against the emulation, where a
// kernel may call the function this source's copy defines: there the whole runtime comes in, so
// that every translation unit defines these functions alike.
#ifndef HIRACE_HOST_CHECKS_H
#define HIRACE_HOST_CHECKS_H
#if defined(CUDAEMU)
#include "runtime.h"
#elif !defined(HIRACE_RUNTIME_H)
namespace hirace {
#define HIRACE_UNCHECKED(name)                                                                     \
  template <class T> inline T *name(T *p, unsigned, const volatile void * = nullptr, unsigned long long = 0) { \
    return p;                                                                                      \
  }
HIRACE_UNCHECKED(hd_rd)
HIRACE_UNCHECKED(hd_wr)
HIRACE_UNCHECKED(hd_rmw)
HIRACE_UNCHECKED(lib_block)
HIRACE_UNCHECKED(lib_device)
HIRACE_UNCHECKED(lib_rd)
HIRACE_UNCHECKED(lib_wr)
HIRACE_UNCHECKED(lib_rmw)
#undef HIRACE_UNCHECKED
#define HIRACE_UNCHECKED_REF(name) \
  template <class R> inline const R &name##_ref(const R &r, unsigned) { return r; }
HIRACE_UNCHECKED_REF(lib_block)
HIRACE_UNCHECKED_REF(lib_device)
HIRACE_UNCHECKED_REF(lib_rd)
HIRACE_UNCHECKED_REF(lib_wr)
HIRACE_UNCHECKED_REF(lib_rmw)
#undef HIRACE_UNCHECKED_REF
inline unsigned ran(unsigned site) { return site; }
}  // namespace hirace
#endif
#endif  // HIRACE_HOST_CHECKS_H
