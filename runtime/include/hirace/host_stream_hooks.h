// The stream relation's hooks (host_streams.h, HIRACE_STREAMS=1): what each CUDA call of the program that
// orders or issues operations does to the relation (a launch that ran: host_stream_launches.h); the macros
// that put them where the program makes those calls; the races written to the log at exit.
#ifndef HIRACE_HOST_STREAM_HOOKS_H
#define HIRACE_HOST_STREAM_HOOKS_H

namespace hirace {
namespace streams {


inline cudaError_t create(const char *text, const char *file, unsigned line, cudaStream_t *p, unsigned flags,
                          cudaError_t e) {
  (void)file;
  (void)line;
  if (e != cudaSuccess || !p) return e;
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  r.agents.push_back(Agent{text, !(flags & cudaStreamNonBlocking), {}});
  r.by_stream[(const void *)*p] = unsigned(r.agents.size() - 1);
  return e;
}

inline cudaError_t destroy(cudaStream_t s) {
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    r.by_stream.erase((const void *)s);   // (its operations keep its agent; a new stream at its address is another)
  }
  return (cudaStreamDestroy)(s);
}

inline cudaError_t stream_sync(cudaStream_t s, cudaError_t e = cudaSuccess) {
  access::Call call;   // (host_access.h)
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  if (e == cudaSuccess) {
    unsigned a = agent_of(r, s);
    Clock c = r.agents[a].clock;
    host_learns(r, c);
  }
  return e;
}

inline cudaError_t device_sync() {
  access::Call call;   // (host_access.h)
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  Clock all;
  for (const Agent &a : r.agents) join(all, a.clock);
  host_learns(r, all);
  return (cudaDeviceSynchronize)();
}

inline cudaError_t event_record(cudaEvent_t e, cudaStream_t s = nullptr) {
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    unsigned a = agent_of(r, s);
    enqueue(r, a);
    r.events[(const void *)e] = r.agents[a].clock;
  }
  return (cudaEventRecord)(e, s);
}

inline cudaError_t stream_wait_event(cudaStream_t s, cudaEvent_t e, unsigned flags = 0) {
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    unsigned a = agent_of(r, s);
    auto it = r.events.find((const void *)e);
    if (it != r.events.end()) {   // (an event never recorded: the wait orders nothing)
      Clock c = it->second;
      join(r.agents[a].clock, c);
    }
  }
  return (cudaStreamWaitEvent)(s, e, flags);
}

inline cudaError_t event_done(cudaEvent_t e, cudaError_t status) {
  access::Call call;   // (host_access.h)
  if (status != cudaSuccess) return status;
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  auto it = r.events.find((const void *)e);
  if (it != r.events.end()) {
    Clock c = it->second;
    host_learns(r, c);
  }
  return status;
}

inline cudaError_t event_destroy(cudaEvent_t e) {
  {
    Relation &r = relation();
    std::lock_guard<std::recursive_mutex> hold(r.m);
    r.events.erase((const void *)e);
  }
  return (cudaEventDestroy)(e);
}

inline Op copy_op(const char *api, const char *file, unsigned line, void *dst, const void *src, size_t n) {
  Op x{api, "", file, line, 0, 0, {}};
  add_span(x.fp, footprint::kWrite, dst, n);
  add_span(x.fp, footprint::kRead, src, n);
  return x;
}

// A synchronous copy `x` from src to dst (its footprint: rows for 2D copies, host_stream_copies.h), by the
// rules of cudaMemcpy.
inline void sync_copy(Relation &r, Op x, void *dst, const void *src, cudaMemcpyKind kind) {
  const Memory d = memory_of(dst), s = memory_of(src);
  const bool dev_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                       (kind == cudaMemcpyDefault && d == kDevice);
  const bool dev_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                       (kind == cudaMemcpyDefault && s == kDevice);
  const unsigned a = default_stream(r);
  const bool pageable_to_device = dev_dst && !dev_src && s == kPageable;
  if (pageable_to_device) {   // a stream sync before the copy begins
    Clock c = r.agents[a].clock;
    host_learns(r, c);
  }
  issue(r, a, std::move(x));
  // done for the host, except device to device and the DMA of a staged pageable copy
  if (!(dev_dst && dev_src) && !pageable_to_device) {
    Clock c = r.agents[a].clock;
    host_learns(r, c);
  }
}

inline cudaError_t memcpy_sync(const char *file, unsigned line, void *dst, const void *src, size_t n,
                               cudaMemcpyKind kind) {
  access::Call call;   // (host_access.h)
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    sync_copy(r, copy_op("cudaMemcpy", file, line, dst, src, n), dst, src, kind);
  }
  return (cudaMemcpy)(dst, src, n, kind);
}

inline cudaError_t memcpy_async(const char *file, unsigned line, void *dst, const void *src, size_t n,
                                cudaMemcpyKind kind, cudaStream_t s = nullptr) {
  access::Call call;   // (host_access.h)
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    issue(r, agent_of(r, s), copy_op("cudaMemcpyAsync", file, line, dst, src, n));
  }
  return (cudaMemcpyAsync)(dst, src, n, kind, s);
}

// A synchronous set `x` of memory at p, by the rules of cudaMemset.
inline void sync_set(Relation &r, Op x, const void *p) {
  const unsigned a = default_stream(r);
  issue(r, a, std::move(x));
  if (memory_of(p) == kPinned) {
    Clock c = r.agents[a].clock;
    host_learns(r, c);
  }
}

inline cudaError_t memset_sync(const char *file, unsigned line, void *p, int v, size_t n) {
  access::Call call;   // (host_access.h)
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    Op x = copy_op("cudaMemset", file, line, p, nullptr, 0);
    add_span(x.fp, footprint::kWrite, p, n);
    sync_set(r, std::move(x), p);
  }
  return (cudaMemset)(p, v, n);
}

inline cudaError_t memset_async(const char *file, unsigned line, void *p, int v, size_t n, cudaStream_t s = nullptr) {
  access::Call call;   // (host_access.h)
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    Op x{"cudaMemsetAsync", "", file, line, 0, 0, {}};
    add_span(x.fp, footprint::kWrite, p, n);
    issue(r, agent_of(r, s), std::move(x));
  }
  return (cudaMemsetAsync)(p, v, n, s);
}

// A host function on a stream: an operation of it, which touches no device memory hirace sees.
inline void host_function(const char *api, const char *file, unsigned line, cudaStream_t s) {
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  issue(r, agent_of(r, s), Op{api, "", file, line, 0, 0, {}});
}
// The host function as it runs: its thread marked for host_access.h (InCallback) while it does. One wrapper
// per (function, data) the program passes, kept for the run: a captured host function runs at every launch
// of its graph.
template <class Fn> struct HostCall {
  Fn fn;
  void *data;
};
template <class Fn> inline HostCall<Fn> *host_call(Fn fn, void *data) {
  static std::mutex m;
  static auto *made = new std::map<std::pair<Fn, void *>, HostCall<Fn> *>;
  std::lock_guard<std::mutex> hold(m);
  HostCall<Fn> *&c = (*made)[{fn, data}];
  if (!c) c = new HostCall<Fn>{fn, data};
  return c;
}
inline void CUDART_CB run_host_func(void *p) {
  const auto *c = static_cast<const HostCall<cudaHostFn_t> *>(p);
  access::InCallback mark;
  c->fn(c->data);
}
inline void CUDART_CB run_callback(cudaStream_t s, cudaError_t e, void *p) {
  const auto *c = static_cast<const HostCall<cudaStreamCallback_t> *>(p);
  access::InCallback mark;
  c->fn(s, e, c->data);
}

inline cudaError_t launch_host_func(const char *file, unsigned line, cudaStream_t s, cudaHostFn_t fn, void *data) {
  access::Call call;   // (host_access.h)
  host_function("cudaLaunchHostFunc", file, line, s);
  return (cudaLaunchHostFunc)(s, &run_host_func, host_call(fn, data));
}
inline cudaError_t add_callback(const char *file, unsigned line, cudaStream_t s, cudaStreamCallback_t cb, void *data,
                                unsigned flags) {
  access::Call call;   // (host_access.h)
  host_function("cudaStreamAddCallback", file, line, s);
  return (cudaStreamAddCallback)(s, &run_callback, host_call(cb, data), flags);
}

// cudaFree synchronises the device (a freed buffer's address may come back in a later allocation).
inline cudaError_t release(int kind, void *p) {
  access::Call call;   // (host_access.h)
  device_sync();
  return host::release(kind, p);
}

// cudaHostUnregister: every page open first (host_access.h), as the memory stops being watched.
inline cudaError_t unregister(void *p) {
  access::Call call;   // (host_access.h)
  return host::host_unregister(p);
}

// The races found, for the log at exit (host_log.h).
inline void write_log(std::FILE *f) {
  access::finish();
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  for (const Logged &x : r.logged)
    ::cctk::hirace_log::write_stream_race(f, x.fields[0].c_str(), x.fields[1].c_str(), x.fields[2].c_str(), x.line_a,
                                          x.fields[3].c_str(), x.fields[4].c_str(), x.fields[6].c_str(),
                                          x.fields[7].c_str(), x.fields[8].c_str(), x.line_b, x.fields[9].c_str(),
                                          x.fields[10].c_str(), x.buffer, x.offset, x.size, x.count);
}
inline const bool kLogHooked = (host::g_stream_log = &write_log, true);

}  // namespace streams
}  // namespace hirace

// The program's calls, where it makes them (after every header of the runtime: hirace's own calls,
// made above, are not the program's). The names start at global scope, so `::cudaMemcpy(...)` works too.
namespace hirace_streams = ::hirace::streams;
inline cudaError_t hirace_streams_create(const char *text, const char *file, unsigned line, cudaStream_t *p,
                                         unsigned flags, int priority = 0, bool with_priority = false) {
  cudaError_t e = with_priority ? (cudaStreamCreateWithPriority)(p, flags, priority)
                                : (cudaStreamCreateWithFlags)(p, flags);
  return ::hirace::streams::create(text, file, line, p, flags, e);
}
inline cudaError_t hirace_streams_query(cudaStream_t s) {
  return ::hirace::streams::stream_sync(s, (cudaStreamQuery)(s));
}
inline cudaError_t hirace_streams_event_sync(cudaEvent_t e) {
  return ::hirace::streams::event_done(e, (cudaEventSynchronize)(e));
}
inline cudaError_t hirace_streams_event_query(cudaEvent_t e) {
  return ::hirace::streams::event_done(e, (cudaEventQuery)(e));
}
#undef cudaFree
#undef cudaFreeHost
#undef cudaHostUnregister
#define cudaStreamCreate(p) hirace_streams_create(#p, __FILE__, __LINE__, p, 0u)
#define cudaStreamCreateWithFlags(p, flags) hirace_streams_create(#p, __FILE__, __LINE__, p, flags)
#define cudaStreamCreateWithPriority(p, flags, prio) hirace_streams_create(#p, __FILE__, __LINE__, p, flags, prio, true)
#define cudaStreamDestroy(s) hirace_streams::destroy(s)
#define cudaStreamSynchronize(s) hirace_streams::stream_sync(s, (cudaStreamSynchronize)(s))
#define cudaStreamQuery(s) hirace_streams_query(s)
#define cudaDeviceSynchronize() hirace_streams::device_sync()
#define cudaThreadSynchronize() hirace_streams::device_sync()
#define cudaEventRecord(...) hirace_streams::event_record(__VA_ARGS__)
#define cudaEventSynchronize(e) hirace_streams_event_sync(e)
#define cudaEventQuery(e) hirace_streams_event_query(e)
#define cudaEventDestroy(e) hirace_streams::event_destroy(e)
#define cudaStreamWaitEvent(...) hirace_streams::stream_wait_event(__VA_ARGS__)
#define cudaMemcpy(dst, src, n, kind) hirace_streams::memcpy_sync(__FILE__, __LINE__, dst, src, n, kind)
#define cudaMemcpyAsync(...) hirace_streams::memcpy_async(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemset(p, v, n) hirace_streams::memset_sync(__FILE__, __LINE__, p, v, n)
#define cudaMemsetAsync(...) hirace_streams::memset_async(__FILE__, __LINE__, __VA_ARGS__)
#define cudaLaunchHostFunc(s, fn, data) hirace_streams::launch_host_func(__FILE__, __LINE__, s, fn, data)
#define cudaStreamAddCallback(s, cb, data, flags) hirace_streams::add_callback(__FILE__, __LINE__, s, cb, data, flags)
#define cudaFree(p) hirace_streams::release(::hirace::kDeviceAlloc, (void *)(p))
#define cudaFreeHost(p) hirace_streams::release(::hirace::kHostAlloc, (void *)(p))
#define cudaHostUnregister(p) hirace_streams::unregister((void *)(p))
#endif  // HIRACE_HOST_STREAM_HOOKS_H
