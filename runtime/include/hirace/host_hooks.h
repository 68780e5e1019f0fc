// hirace's allocation tracking for host-only C++ sources (.cpp files that the host compiler
// builds, where hirace/host.h and its device code cannot go). The functions are defined by
// hirace/host.h in the program's CUDA sources.
#ifndef HIRACE_HOST_HOOKS_H
#define HIRACE_HOST_HOOKS_H
#include <stddef.h>
// the runtime's declarations first: the macros below must not rewrite them
#include <cuda_runtime.h>

extern "C" void hirace_host_track_alloc(int err, void **where, size_t size, const char *name);
extern "C" void hirace_host_before_free(const void *p);

namespace hirace {
namespace hooks {
template <class Error> inline Error track_alloc(Error e, void **where, size_t size, const char *name) {
  hirace_host_track_alloc(int(e), where, size, name);
  return e;
}
inline void before_free(const void *p) { hirace_host_before_free(p); }
}  // namespace hooks
}  // namespace hirace

#include "alloc_hooks.h"
#define cudaMalloc(p, ...) HIRACE_TRACK_V(::hirace::hooks, cudaMalloc, p, __VA_ARGS__)
#define cudaMallocManaged(p, ...) HIRACE_TRACK_V(::hirace::hooks, cudaMallocManaged, p, __VA_ARGS__)
#define cudaMallocHost(p, ...) HIRACE_TRACK_V(::hirace::hooks, cudaMallocHost, p, __VA_ARGS__)
#define cudaHostAlloc(p, ...) HIRACE_TRACK_V(::hirace::hooks, cudaHostAlloc, p, __VA_ARGS__)
#define cudaFree(p) (::hirace::hooks::before_free((const void *)(p)), ::cudaFree(p))

#endif  // HIRACE_HOST_HOOKS_H
