// hirace's allocation tracking for host-only C++ sources (.cpp files that the host compiler
// builds, where hirace/host.h and its device code cannot go). The functions are defined by
// hirace/host.h in the program's CUDA sources.
#ifndef HIRACE_HOST_HOOKS_H
#define HIRACE_HOST_HOOKS_H
#include <stddef.h>
// the runtime's declarations first: the macros below must not rewrite them
#include <cuda_runtime.h>

#include "alloc_hooks.h"   // the kinds (the macros come last)

extern "C" int hirace_host_allocate(int kind, const char *name, const char *file, unsigned line, void **where,
                                    size_t size, unsigned flags);
extern "C" int hirace_host_release(int kind, void *p);
extern "C" int hirace_host_register(const char *name, const char *file, unsigned line, void *p, size_t size,
                                    unsigned flags);
extern "C" int hirace_host_unregister(void *p);
#if !defined(CUDAEMU)
extern "C" int hirace_host_begin_capture(void *stream, int mode);
extern "C" int hirace_host_end_capture(void *stream, void *graph);
#endif

namespace hirace {
namespace hooks {
inline cudaError_t allocate(int kind, const char *name, const char *file, unsigned line, void **where, size_t size,
                            unsigned flags = kDefaultFlags) {
  return cudaError_t(hirace_host_allocate(kind, name, file, line, where, size, flags));
}
inline cudaError_t release(int kind, void *p) { return cudaError_t(hirace_host_release(kind, p)); }
inline cudaError_t host_register(const char *name, const char *file, unsigned line, void *p, size_t size,
                                 unsigned flags = cudaHostRegisterDefault) {
  return cudaError_t(hirace_host_register(name, file, line, p, size, flags));
}
inline cudaError_t host_unregister(void *p) { return cudaError_t(hirace_host_unregister(p)); }
#if !defined(CUDAEMU)
inline cudaError_t begin_capture(cudaStream_t s, cudaStreamCaptureMode mode) {
  return cudaError_t(hirace_host_begin_capture((void *)s, int(mode)));
}
inline cudaError_t end_capture(cudaStream_t s, cudaGraph_t *graph) {
  return cudaError_t(hirace_host_end_capture((void *)s, (void *)graph));
}
#endif
}  // namespace hooks
}  // namespace hirace

#undef HIRACE_HOOKS
#define HIRACE_HOOKS ::hirace::hooks
#include "alloc_hooks.h"

#endif  // HIRACE_HOST_HOOKS_H
