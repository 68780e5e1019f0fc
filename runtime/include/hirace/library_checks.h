// The checks outside a kernel's own accesses: a __host__ __device__ function's (checked where it
// runs in a kernel, unchecked on the host), a CUB block primitive's use of its TempStorage
// (`Collective`), and libcu++'s atomics (lib_*: an atomic access of the atomic's scope).
#ifndef HIRACE_LIBRARY_CHECKS_H
#define HIRACE_LIBRARY_CHECKS_H

#include "check.h"

namespace hirace {
inline namespace HIRACE_UNIT_CONFIG {   // (config.h: this unit's configuration's own)

// Accesses in __host__ __device__ functions (hirace/planner.py): checked where the function runs in a
// kernel; the host's own calls (its pass of nvcc, or the cpu backend outside a launch) touch no
// kernel's memory, and go unchecked.
#if defined(__CUDA_ARCH__)
#define HIRACE_IN_KERNEL true
#elif defined(CUDAEMU)
#define HIRACE_IN_KERNEL (::cudaemu::detail::g_cur != nullptr)
#else
#define HIRACE_IN_KERNEL false
#endif
#if defined(__CUDA_ARCH__) || defined(CUDAEMU)
#define HIRACE_HD_CHECK(fn) return HIRACE_IN_KERNEL ? fn(p, site, base, bytes) : p
#else
#define HIRACE_HD_CHECK(fn) return (void)site, (void)base, (void)bytes, p
#endif
template <class T> CCTK_HD inline T *hd_rd(T *p, unsigned site, const volatile void *base = nullptr,
                                          unsigned long long bytes = 0) {
  HIRACE_HD_CHECK(rd);
}
template <class T> CCTK_HD inline T *hd_wr(T *p, unsigned site, const volatile void *base = nullptr,
                                          unsigned long long bytes = 0) {
  HIRACE_HD_CHECK(wr);
}
template <class T> CCTK_HD inline T *hd_rmw(T *p, unsigned site, const volatile void *base = nullptr,
                                           unsigned long long bytes = 0) {
  HIRACE_HD_CHECK(rmw);
}
#if HIRACE_MEMORY_SYNC   // (volatile accesses, strong: check.h vrd)
template <class T> CCTK_HD inline T *hd_vrd(T *p, unsigned site, const volatile void *base = nullptr,
                                           unsigned long long bytes = 0) {
  HIRACE_HD_CHECK(vrd);
}
template <class T> CCTK_HD inline T *hd_vwr(T *p, unsigned site, const volatile void *base = nullptr,
                                           unsigned long long bytes = 0) {
  HIRACE_HD_CHECK(vwr);
}
template <class T> CCTK_HD inline T *hd_vrmw(T *p, unsigned site, const volatile void *base = nullptr,
                                            unsigned long long bytes = 0) {
  HIRACE_HD_CHECK(vrmw);
}
#endif

// A call of a CUB block primitive (hirace/planner.py), as the library uses the TempStorage `s` the
// primitive was made from: the block's first thread writes it before the block synchronises inside
// the call (made before the call, when the Collective is constructed), and every thread reads it
// after (when the Collective is destroyed, at the end of the call's full expression). Two uses
// without a __syncthreads between them then race, as CUB documents; so do the user's own
// accesses to that storage (a union reused for another primitive) without one. Each thread reads
// one word of it, the first thread writes all. A storage of one byte is the library's empty one.
struct Collective {
  const char *p;
  unsigned n, site;
  CCTK_D Collective(const volatile void *s, unsigned long long bytes, unsigned sid)
      : p((const char *)s), n(unsigned(bytes)), site(sid) {
    if (n > 1 && linear_tid() == 0) check(p, n, site, fsm::kWrite);
  }
  CCTK_D ~Collective() {
    if (n <= 1) return;
    after_block_barrier();
    unsigned word = n >= 4 ? 4 : n, words = n / word;
    check(p + (linear_tid() % words) * word, word, site, fsm::kRead);
  }
  Collective(const Collective &) = delete;
  Collective &operator=(const Collective &) = delete;
};

// libcu++'s atomics (cuda::atomic_ref, cuda::atomic and their cuda::std:: forms; hirace/planner.py):
// an operation is an atomic access of the atomic's scope at its address (a plain access for
// thread_scope_thread, which is atomic to its own thread only), checked wherever the function
// runs in a kernel: `(*::hirace::lib_device(&(flag), 7u)).fetch_add(1)`.
#define HIRACE_LIB_CHECK(name, fn)                                                         \
  template <class T> CCTK_HD inline T *name(T *p, unsigned site) {                          \
    const volatile void *base = nullptr;                                                   \
    unsigned long long bytes = 0;                                                          \
    HIRACE_HD_CHECK(fn);                                                                   \
  }
HIRACE_LIB_CHECK(lib_block, atomic_block)
HIRACE_LIB_CHECK(lib_device, atomic_device)
HIRACE_LIB_CHECK(lib_rd, rd)
HIRACE_LIB_CHECK(lib_wr, wr)
HIRACE_LIB_CHECK(lib_rmw, rmw)
#undef HIRACE_LIB_CHECK
// An atomic_ref keeps the address it refers to and nothing else (the static_assert holds that):
// its operations are checked at that address, through a copy that refers to the diverted word
// where the check diverts: `::hirace::lib_device_ref(r, 7u).fetch_add(1)`.
template <class R> CCTK_HD inline typename R::value_type *referent(const R &r) {
  static_assert(sizeof(R) == sizeof(typename R::value_type *),
                "hirace: this atomic_ref keeps more than its address; please report it with the CCCL version");
  typename R::value_type *p;
  memcpy((void *)&p, (const void *)&r, sizeof p);
  return p;
}
#define HIRACE_LIB_REF(name) \
  template <class R> CCTK_HD inline R name##_ref(const R &r, unsigned site) { return R(*name(referent(r), site)); }
HIRACE_LIB_REF(lib_block)
HIRACE_LIB_REF(lib_device)
HIRACE_LIB_REF(lib_rd)
HIRACE_LIB_REF(lib_wr)
HIRACE_LIB_REF(lib_rmw)
#undef HIRACE_LIB_REF
#if HIRACE_MEMORY_SYNC
// In units that follow synchronisation through memory: an operation of a libcu++ atomic of block or
// device scope is a strong access with the fences its memory order implies (memsync::How, from
// hirace/planner.py): `::hirace::lib_sync_ref(r, 7u, 93u).store(1, cuda::memory_order_release)`.
template <class T> CCTK_HD inline T *lib_sync(T *p, unsigned site, unsigned how) {
#if defined(__CUDA_ARCH__) || defined(CUDAEMU)
  if (HIRACE_IN_KERNEL)
    return how & memsync::kDeviceScope ? strong_device(p, site, how) : strong_block(p, site, how);
#endif
  return (void)site, (void)how, p;
}
template <class R> CCTK_HD inline R lib_sync_ref(const R &r, unsigned site, unsigned how) {
  return R(*lib_sync(referent(r), site, how));
}
#endif
#undef HIRACE_HD_CHECK
#undef HIRACE_IN_KERNEL

}  // inline namespace HIRACE_UNIT_CONFIG
}  // namespace hirace

#endif  // HIRACE_LIBRARY_CHECKS_H
