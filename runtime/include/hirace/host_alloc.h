// Allocation tracking: the shadow (and prior-site slots) of every buffer the program allocates, with
// redzones around it (allocate, release: what cudaMalloc and cudaFree become, through the macros of
// alloc_hooks.h, defined here for the rest of the program), hirace's own device memory (tool_alloc:
// listed, so an access of the program there is out of bounds), its prior-site slots given up first
// when memory runs short, stream capture, and the registration of __device__ variables.
#ifndef HIRACE_HOST_ALLOC_H
#define HIRACE_HOST_ALLOC_H

#include "host_init.h"
#include "host_site_budget.h"   // which buffers keep prior-site slots

namespace hirace {
namespace host {

// The shadow's granularity: kShift, the program's narrowest access (shared memory's, and the finest a
// buffer takes); kBufferShift, a buffer's when it is allocated, made finer before a launch that may
// touch it with narrower accesses (host_granularity.h). One for all where the planner gives no second
// (HIRACE_BUFFER_SHIFT -1): hirace.toml's granularity, units built by themselves, and programs whose host
// order of operations is followed (HIRACE_STREAMS: footprints and host accesses count the program's words).
constexpr unsigned kShift = HIRACE_GRANULARITY_SHIFT;
constexpr unsigned kBufferShift = HIRACE_BUFFER_SHIFT < HIRACE_GRANULARITY_SHIFT ? kShift : unsigned(HIRACE_BUFFER_SHIFT);

inline size_t shadow_words(size_t bytes, unsigned shift = kShift) { return (bytes + (1u << shift) - 1) >> shift; }

// hirace's own device memory: allocated through the API's parenthesized name (which the
// tracking macros leave alone) and listed, so that an access of the program that lands there
// is caught as out of bounds instead of corrupting the checker.
inline bool evict_sites();
inline void *try_tool_alloc(size_t bytes);
[[noreturn]] inline void out_of_memory(const char *what, size_t bytes, const char *file = "", unsigned line = 0);
inline void *tool_alloc(size_t bytes, const char *what, const char *file = "", unsigned line = 0) {
  void *p = try_tool_alloc(bytes);
  if (!p && evict_sites()) p = try_tool_alloc(bytes);   // the prior-site slots go first
  if (!p) out_of_memory(what, bytes, file, line);
  return p;
}
// Prior-site slots (empty: all ones), or nullptr when they do not fit: then they are given up for
// every buffer (evict_sites), not fought for.
inline unsigned *site_slots(size_t bytes) {
  void *p = try_tool_alloc(bytes);
  if (p) check_cuda(cudaMemset(p, 0xff, bytes), "site shadow reset");
  else evict_sites();
  return static_cast<unsigned *>(p);
}
inline void tool_free(void *p) {
  if (!p) return;
  auto &t = state().tool_memory;
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].first == p) {
      t.erase(t.begin() + long(i));
      ++state().generation;
      break;
    }
  (cudaFree)(p);
}
// hirace cannot go on without this memory: say what it is for and what would need less, and end.
[[noreturn]] inline void out_of_memory(const char *what, size_t bytes, const char *file, unsigned line) {
  std::fprintf(stderr, "hirace: no device memory left for its %s (%zu bytes", what, bytes);
  if (file && *file) std::fprintf(stderr, "; the buffer allocated at %s:%u", file, line);
  std::fprintf(stderr, "): the program does not fit on the device with hirace's memory beside it (8 bytes of shadow "
               "per %u-byte word of its buffers, 8 bytes of clocks per thread); a coarser granularity "
               "(--granularity 8) halves the shadow, a smaller problem size shrinks both\n", 1u << kShift);
  std::fflush(stderr);
  std::_Exit(::cctk::exit_code::kExitRuntimeFailure);
}

// The same, or nullptr when the device has no room (the error cleared)
inline void *try_tool_alloc(size_t bytes) {
  void *p = nullptr;
  if ((cudaMalloc)(&p, bytes) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  state().tool_memory.push_back({p, bytes});
  ++state().generation;
  return p;
}

// Device memory ran short: the prior-site slots of the program's buffers (16 bytes a word, there only
// to name the other access of a race) go first, so that the program's allocations and the shadows
// still fit; no buffer gets them after that (the log's end record says so). False: none to free.
inline bool evict_sites() {
  State &s = state();
  if (!s.prior_sites) return false;
  s.sites_evicted = 1;
  bool any = false;
  for (const Buffer &b : s.buffers) any |= b.sites != nullptr;
  any |= s.d_shared_sites != nullptr;
  if (!any) return false;
  drain();   // no pending launch may use them
  for (Buffer &b : s.buffers) {
    tool_free(b.sites);
    b.sites = nullptr;
  }
  tool_free(s.d_shared_sites);   // launches keep no sites from now on (see before_launch)
  s.d_shared_sites = nullptr;
  s.d_shared_sites_bytes = 0;
  return true;
}

// A buffer's shadow (all INIT) and prior-site slots (all empty, where the budget holds with them:
// host_site_budget.h) at its granularity b.shift, on the device
// the buffer was allocated on (made before a launch that may run on another: host_buffer_state.h,
// host_granularity.h; a launch there that writes it reaches both the same way)
inline void shadow_buffer(Buffer &b) {
  State &s = state();
  size_t words = shadow_words(b.size, b.shift);
  if (!words) return;
  int current = b.device;
  cudaGetDevice(&current);
  if (current != b.device) cudaSetDevice(b.device);
  if (s.prior_sites && !s.sites_evicted) make_room_for_shadow(b);
  b.shadow = static_cast<unsigned long long *>(tool_alloc(words * 8, "shadow of a buffer", b.file.c_str(), b.line));
  b.checked = true;
#if !defined(CUDAEMU)   // (cudaemu's memory comes zeroed from calloc: a page of the shadow costs nothing until used)
  check_cuda(cudaMemset(b.shadow, 0, words * 8), "shadow reset");
#endif
  if (s.prior_sites && !s.sites_evicted && sites_fit(b)) b.sites = site_slots(words * 4 * kSiteSlots);
  if (current != b.device) {   // (the resets done before a launch on the other device reads them)
    check_cuda(cudaDeviceSynchronize(), "shadow reset");
    cudaSetDevice(current);
  }
}

inline int add_buffer(void *base, size_t size, const char *name, size_t redzone, const char *file, unsigned line) {
  State &s = state();
  Buffer b{base, size, nullptr, nullptr, name ? name : "?", true, redzone, file ? file : "", line};
  b.shift = kBufferShift;
  cudaGetDevice(&b.device);
  if (!HIRACE_LAZY_STATE) shadow_buffer(b);   // (else before the first launch that may write it: host_buffer_state.h)
  s.buffers.push_back(b);
  ++s.generation;
  return int(s.buffers.size() - 1);
}

// Redzones around each allocation of the program: an access a little past either end lands in
// memory that belongs to no buffer (and is reported), not in the next buffer or hirace's shadow.
// A multiple of 256 bytes keeps the alignment cudaMalloc promises.
inline size_t redzone_for(size_t bytes) {
  size_t rz = (bytes / 64 + 255) / 256 * 256;
  return std::min<size_t>(std::max<size_t>(rz, 256), size_t(64) << 10);
}

inline cudaError_t raw_alloc(int kind, void **p, size_t bytes, unsigned flags) {
  if (kind == kManagedAlloc) return (cudaMallocManaged)(p, bytes, flags == kDefaultFlags ? cudaMemAttachGlobal : flags);
  if (kind == kHostAlloc) return (cudaHostAlloc)(p, bytes, flags == kDefaultFlags ? cudaHostAllocDefault : flags);
  return (cudaMalloc)(p, bytes);
}

inline std::recursive_mutex &launch_mutex();

// `cudaMalloc(&d, n)` becomes `allocate(kDeviceAlloc, "&d", __FILE__, __LINE__, (void **)(&d), n)`: the
// allocation with its redzones, the pointer the program gets between them, and the buffer tracked.
inline cudaError_t allocate(int kind, const char *name, const char *file, unsigned line, void **where,
                            size_t bytes, unsigned flags = kDefaultFlags) {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  init();
  if (!where || bytes == 0) return raw_alloc(kind, where, bytes, flags);   // as the runtime answers it
  size_t rz = state().bounds ? redzone_for(bytes) : 0;
  void *raw = nullptr;
  cudaError_t e = raw_alloc(kind, &raw, bytes + 2 * rz, flags);
  if (e == cudaErrorMemoryAllocation && evict_sites()) {   // room that hirace's prior sites took
    cudaGetLastError();
    e = raw_alloc(kind, &raw, bytes + 2 * rz, flags);
  }
  if (e != cudaSuccess) {   // no room for the redzones: the allocation as asked
    cudaGetLastError();
    rz = 0;
    e = raw_alloc(kind, &raw, bytes, flags);
    if (e != cudaSuccess) return e;
  }
  char *user = static_cast<char *>(raw) + rz;
  if (rz) {
    if (kind == kHostAlloc) {
      std::memset(raw, 0, rz);
      std::memset(user + bytes, 0, rz);
    } else {
      check_cuda(cudaMemset(raw, 0, rz), "redzone reset");
      check_cuda(cudaMemset(user + bytes, 0, rz), "redzone reset");
    }
  }
  *where = user;
  state().buffers[size_t(add_buffer(user, bytes, name, rz, file, line))].kind = kind;
  return e;
}

// The buffer at `p` no longer tracked (its shadow freed): its redzone's bytes, or 0 (not hirace's).
inline size_t forget(void *p) {
  size_t redzone = 0;
  bool found = false;
  for (Buffer &b : state().buffers)
    if (b.live && b.base == p) {
      b.live = false;
      ++state().generation;
      tool_free(b.shadow);
      tool_free(b.sites);
      b.shadow = nullptr;
      b.sites = nullptr;
      if (!found) redzone = b.redzone;
      found = true;
    }
  return redzone;
}

// `cudaFree(p)` becomes `release(kDeviceAlloc, p)`: the buffer's shadow goes, and the allocation
// with its redzones (a pointer hirace did not allocate is passed on as it is).
inline cudaError_t release(int kind, void *p) {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  drain();   // the pending launches read back first (a free waits for them anyway)
  char *raw = static_cast<char *>(p) - forget(p);
  return kind == kHostAlloc ? (cudaFreeHost)(raw) : (cudaFree)(raw);
}

// `cudaHostRegister(p, n, flags)`: the program's host memory, pinned (and mapped where the flags ask), tracked
// as a buffer from then on (a device access through its mapped address checked like any; the host's accesses
// watched, host_access.h; a copy to or from it pinned, host_streams.h), until `cudaHostUnregister(p)`.
inline cudaError_t host_register(const char *name, const char *file, unsigned line, void *p, size_t bytes,
                                 unsigned flags) {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  init();
  cudaError_t e = (cudaHostRegister)(p, bytes, flags);
  if (e == cudaSuccess && p && bytes) state().buffers[size_t(add_buffer(p, bytes, name, 0, file, line))].kind = kRegistered;
  return e;
}
inline cudaError_t host_unregister(void *p) {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  drain();
  forget(p);
  return (cudaHostUnregister)(p);
}

// `cudaStreamBeginCapture(s, mode)` and `cudaStreamEndCapture(s, &g)` (alloc_hooks.h): while a stream
// captures, launches are recorded, not run, and hirace's own copies would break the capture. (The
// cpu backend's emulation has no graphs: instrument/compile/pipeline.py refuses programs that capture.)
#if !defined(CUDAEMU)
inline void note_captured() {
  if (state().captured_launches)
    std::fprintf(stderr, "hirace: %llu kernel launch(es) were recorded into CUDA graphs (stream capture); the graphs ran "
                 "them outside hirace's brackets, unchecked\n", state().captured_launches);
}
inline cudaError_t begin_capture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  cudaError_t e = (cudaStreamBeginCapture)(stream, mode);
  if (e == cudaSuccess) ++state().capturing;
  static const bool noted = std::atexit(note_captured) == 0;   // (whether or not a launch was ever bracketed)
  (void)noted;
  return e;
}
inline cudaError_t end_capture(cudaStream_t stream, cudaGraph_t *graph) {
  cudaError_t e = (cudaStreamEndCapture)(stream, graph);
  if (state().capturing > 0) --state().capturing;
  return e;
}
#endif

}  // namespace host
}  // namespace hirace

// The same tracking for host-only sources (.cpp files compiled by the host compiler, which
// cannot include this header): hirace/host_hooks.h declares these; every CUDA source that
// includes this header defines them (weak: the linker keeps one).
extern "C" __attribute__((weak)) int hirace_host_allocate(int kind, const char *name, const char *file, unsigned line,
                                                         void **where, size_t size, unsigned flags) {
  return int(hirace::host::allocate(kind, name, file, line, where, size, flags));
}
extern "C" __attribute__((weak)) int hirace_host_release(int kind, void *p) {
  return int(hirace::host::release(kind, p));
}
extern "C" __attribute__((weak)) int hirace_host_register(const char *name, const char *file, unsigned line, void *p,
                                                         size_t size, unsigned flags) {
  return int(hirace::host::host_register(name, file, line, p, size, flags));
}
extern "C" __attribute__((weak)) int hirace_host_unregister(void *p) { return int(hirace::host::host_unregister(p)); }
#if !defined(CUDAEMU)
extern "C" __attribute__((weak)) int hirace_host_begin_capture(void *stream, int mode) {
  return int(hirace::host::begin_capture(cudaStream_t(stream), cudaStreamCaptureMode(mode)));
}
extern "C" __attribute__((weak)) int hirace_host_end_capture(void *stream, void *graph) {
  return int(hirace::host::end_capture(cudaStream_t(stream), (cudaGraph_t *)graph));
}
#endif

// Allocations are tracked where the program makes them, however they are written: inside a
// macro's argument (CHECK(cudaMalloc(&d, n))), in a helper, anywhere after this header. The
// macros replace only the call; a macro that stringizes its argument (#call) still shows the
// program's own text, since # works on the argument as written.
#undef HIRACE_HOOKS
#define HIRACE_HOOKS ::hirace::host
#include "alloc_hooks.h"

// Below, the runtime's own memory (ranges, clocks, shared shadow, race log) is allocated through
// the API's parenthesized names, `(cudaMalloc)(...)`, which the macros above leave alone: it is
// not the program's, so it is neither checked nor counted as the program's memory.
namespace hirace {
namespace host {

struct SymbolRegistrar {
  SymbolRegistrar(void *(*address)(), size_t size, const char *name, const char *file = "", unsigned line = 0) {
    state().symbols.push_back(Symbol{address, size, name, -1, file, line});
  }
};

struct TuRegistrar {
  explicit TuRegistrar(void (*setter)(const LaunchState &, bool)) { state().tus.push_back(setter); }
};
// A unit that follows synchronisation through memory registers the setter of its copy of the record
// (host_unit.h, HIRACE_MEMORY_SYNC)
struct MemsyncRegistrar {
  explicit MemsyncRegistrar(void (*setter)(const void *)) { state().memsync_tus.push_back(setter); }
};

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_ALLOC_H
