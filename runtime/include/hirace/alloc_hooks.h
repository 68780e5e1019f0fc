// The expression an allocation call becomes under hirace (see host.h and host_hooks.h):
// the call itself, then `track` reads the pointer it set. The pointer argument's text names
// the buffer in reports ("&d_a" -> "d_a", tidied by the reader).
#ifndef HIRACE_ALLOC_HOOKS_H
#define HIRACE_ALLOC_HOOKS_H
#define HIRACE_TRACK(track, call, p, n) track((call), (void **)(p), (size_t)(n), #p)
#define HIRACE_FIRST(a, ...) a
// the allocators hirace follows, for a prefix of hooks (::hirace::host or ::hirace::hooks); each
// keeps every argument form of the runtime's overloads (cudaMallocHost with or without flags)
#define HIRACE_TRACK_V(ns, fn, p, ...) HIRACE_TRACK(ns::track_alloc, ::fn(p, __VA_ARGS__), p, HIRACE_FIRST(__VA_ARGS__, 0))
#endif  // HIRACE_ALLOC_HOOKS_H
