// What an allocation call becomes under hirace (see host_alloc.h and host_hooks.h, which define
// HIRACE_HOOKS, the namespace of the functions): `cudaMalloc(&d, n)` calls allocate() with the
// pointer argument's text, which names the buffer in reports ("&d_a" -> "d_a", tidied by the
// reader), and the place of the call. Each macro keeps every argument form of the runtime's
// overloads (cudaMallocHost with or without flags, cudaMallocManaged with or without them).
#ifndef HIRACE_ALLOC_HOOKS_H
#define HIRACE_ALLOC_HOOKS_H
namespace hirace {
// (kRegistered: the program's own host memory, pinned by cudaHostRegister until cudaHostUnregister)
enum AllocKind : int { kDeviceAlloc = 0, kManagedAlloc = 1, kHostAlloc = 2, kRegistered = 3 };
// memory the host and the device both reach: managed, pinned (allocated or registered)
inline bool host_reachable(int kind) { return kind == kManagedAlloc || kind == kHostAlloc || kind == kRegistered; }
constexpr unsigned kDefaultFlags = ~0u;   // the runtime's default flags for the kind
}  // namespace hirace
#define HIRACE_ALLOC(kind, p, ...) HIRACE_HOOKS::allocate(kind, #p, __FILE__, __LINE__, (void **)(p), __VA_ARGS__)
#endif  // HIRACE_ALLOC_HOOKS_H

// The macros, once the including header has defined HIRACE_HOOKS (each inclusion redefines them).
#if defined(HIRACE_HOOKS)
#undef cudaMalloc
#undef cudaMallocManaged
#undef cudaMallocHost
#undef cudaHostAlloc
#undef cudaFree
#undef cudaFreeHost
#undef cudaHostRegister
#undef cudaHostUnregister
#undef cudaStreamBeginCapture
#undef cudaStreamEndCapture
#define cudaMalloc(p, ...) HIRACE_ALLOC(::hirace::kDeviceAlloc, p, __VA_ARGS__)
#define cudaMallocManaged(p, ...) HIRACE_ALLOC(::hirace::kManagedAlloc, p, __VA_ARGS__)
#define cudaMallocHost(p, ...) HIRACE_ALLOC(::hirace::kHostAlloc, p, __VA_ARGS__)
#define cudaHostAlloc(p, ...) HIRACE_ALLOC(::hirace::kHostAlloc, p, __VA_ARGS__)
#define cudaFree(p) HIRACE_HOOKS::release(::hirace::kDeviceAlloc, (void *)(p))
#define cudaFreeHost(p) HIRACE_HOOKS::release(::hirace::kHostAlloc, (void *)(p))
#define cudaHostRegister(p, ...) HIRACE_HOOKS::host_register(#p, __FILE__, __LINE__, (void *)(p), __VA_ARGS__)
#define cudaHostUnregister(p) HIRACE_HOOKS::host_unregister((void *)(p))
// (not allocations: a capture turns launches into a graph's, which hirace must know; the cpu
// backend emulates no graphs)
#if !defined(CUDAEMU)
#define cudaStreamBeginCapture(s, mode) HIRACE_HOOKS::begin_capture(s, mode)
#define cudaStreamEndCapture(s, graph) HIRACE_HOOKS::end_capture(s, graph)
#endif
#endif  // HIRACE_HOOKS
