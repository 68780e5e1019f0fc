// The expression an allocation call becomes under hirace (see host.h and host_hooks.h):
// the call itself, then `track` reads the pointer it set. The pointer argument's text names
// the buffer in reports ("&d_a" -> "d_a", tidied by the reader).
#ifndef HIRACE_ALLOC_HOOKS_H
#define HIRACE_ALLOC_HOOKS_H
#define HIRACE_TRACK(track, call, p, n) track((call), (void **)(p), (size_t)(n), #p)
#endif  // HIRACE_ALLOC_HOOKS_H
