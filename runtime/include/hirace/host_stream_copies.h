// More operations of the stream relation (host_streams.h, HIRACE_STREAMS=1): 2D copies and
// sets (their footprint: the rows, not the pitch between them), copies to and from symbols, peer copies,
// and stream-ordered allocation.
// - cudaMemcpy2D, cudaMemcpyToSymbol, cudaMemcpyFromSymbol: by cudaMemcpy's rules (host_stream_hooks.h
//   sync_copy); cudaMemset2D: by cudaMemset's (sync_set); the Async forms: operations of their stream,
//   never done for the host; on a capturing stream, the capture's (host_graphs.h).
// - cudaMemcpyPeer: an operation of the default stream the host does not know done (the runtime documents
//   it asynchronous with respect to the host); cudaMemcpyPeerAsync: of its stream.
// - cudaMallocAsync, cudaMallocFromPoolAsync: the allocation is an operation of its stream that writes the
//   whole buffer, so a use on a stream that is not ordered after it is a race with the allocation;
//   cudaFreeAsync: an operation of its stream that writes the whole buffer, so an earlier use not ordered
//   before it is a race with the free (a use after free). After the free, no earlier operation's footprint
//   keeps the freed bytes: memory the allocator gives again belongs to another buffer, and no race is
//   reported between the two. The buffers are hirace's as cudaMalloc's are (host_alloc.h allocate); the
//   emulation allocates and frees at once (also during a capture: allocation nodes are not emulated); on the
//   gpu backend hirace allocates with cudaMalloc and frees with cudaFree (which orders more than the
//   program asked: the verdict comes from the relation, which follows the program's calls).
#ifndef HIRACE_HOST_STREAM_COPIES_H
#define HIRACE_HOST_STREAM_COPIES_H

namespace hirace {
namespace streams {

// Where a symbol's bytes are, as kernels and the range table see them (on the gpu backend the host's `&sym`
// is a stand-in for the device's variable)
template <class T> inline char *symbol_address(const T &sym) {
#if !defined(CUDAEMU)
  void *p = nullptr;
  if (cudaGetSymbolAddress(&p, sym) == cudaSuccess && p) return static_cast<char *>(p);
  cudaGetLastError();   // (the program's own call fails too, and says so)
#endif
  return reinterpret_cast<char *>(const_cast<T *>(&sym));
}

inline Op rows_op(const char *api, const char *file, unsigned line, void *dst, size_t dpitch, const void *src,
                  size_t spitch, size_t width, size_t height) {
  Op x{api, "", file, line, 0, 0, {}};
  for (size_t r = 0; r < height; ++r) {
    add_span(x.fp, footprint::kWrite, static_cast<char *>(dst) + r * dpitch, width);
    if (src) add_span(x.fp, footprint::kRead, static_cast<const char *>(src) + r * spitch, width);
  }
  sort_spans(x.fp);
  return x;
}

inline cudaError_t memcpy2d(const char *file, unsigned line, void *dst, size_t dp, const void *src, size_t sp, size_t w,
                            size_t h, cudaMemcpyKind kind) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    sync_copy(r, rows_op("cudaMemcpy2D", file, line, dst, dp, src, sp, w, h), dst, src, kind);
  }
  return (cudaMemcpy2D)(dst, dp, src, sp, w, h, kind);
}
inline cudaError_t memcpy2d_async(const char *file, unsigned line, void *dst, size_t dp, const void *src, size_t sp,
                                  size_t w, size_t h, cudaMemcpyKind kind, cudaStream_t s = nullptr) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  if (captured(file, line, "cudaMemcpy2DAsync", s)) return (cudaMemcpy2DAsync)(dst, dp, src, sp, w, h, kind, s);
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    issue(r, agent_of(r, s), rows_op("cudaMemcpy2DAsync", file, line, dst, dp, src, sp, w, h));
  }
  return (cudaMemcpy2DAsync)(dst, dp, src, sp, w, h, kind, s);
}
inline cudaError_t memset2d(const char *file, unsigned line, void *p, size_t pitch, int v, size_t w, size_t h) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    sync_set(r, rows_op("cudaMemset2D", file, line, p, pitch, nullptr, 0, w, h), p);
  }
  return (cudaMemset2D)(p, pitch, v, w, h);
}
inline cudaError_t memset2d_async(const char *file, unsigned line, void *p, size_t pitch, int v, size_t w, size_t h,
                                  cudaStream_t s = nullptr) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  if (captured(file, line, "cudaMemset2DAsync", s)) return (cudaMemset2DAsync)(p, pitch, v, w, h, s);
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    issue(r, agent_of(r, s), rows_op("cudaMemset2DAsync", file, line, p, pitch, nullptr, 0, w, h));
  }
  return (cudaMemset2DAsync)(p, pitch, v, w, h, s);
}

template <class T>
inline cudaError_t to_symbol(const char *file, unsigned line, const T &sym, const void *src, size_t n, size_t off = 0,
                             cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  void *dst = symbol_address(sym) + off;
  if (off + n <= sizeof(T)) {   // (else the call fails)
    Relation &r = relation();
    std::lock_guard<std::recursive_mutex> hold(r.m);
    sync_copy(r, copy_op("cudaMemcpyToSymbol", file, line, dst, src, n), dst, src,
              kind == cudaMemcpyDefault ? cudaMemcpyDefault : cudaMemcpyHostToDevice);
  }
  return (cudaMemcpyToSymbol)(sym, src, n, off, kind);
}
template <class T>
inline cudaError_t to_symbol_async(const char *file, unsigned line, const T &sym, const void *src, size_t n,
                                   size_t off = 0, cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                   cudaStream_t s = nullptr) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  if (captured(file, line, "cudaMemcpyToSymbolAsync", s)) return (cudaMemcpyToSymbolAsync)(sym, src, n, off, kind, s);
  if (off + n <= sizeof(T)) {
    Relation &r = relation();
    std::lock_guard<std::recursive_mutex> hold(r.m);
    issue(r, agent_of(r, s), copy_op("cudaMemcpyToSymbolAsync", file, line,
                                     symbol_address(sym) + off, src, n));
  }
  return (cudaMemcpyToSymbolAsync)(sym, src, n, off, kind, s);
}
template <class T>
inline cudaError_t from_symbol(const char *file, unsigned line, void *dst, const T &sym, size_t n, size_t off = 0,
                               cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  const void *src = symbol_address(sym) + off;
  if (off + n <= sizeof(T)) {
    Relation &r = relation();
    std::lock_guard<std::recursive_mutex> hold(r.m);
    sync_copy(r, copy_op("cudaMemcpyFromSymbol", file, line, dst, src, n), dst, src,
              kind == cudaMemcpyDefault ? cudaMemcpyDefault : cudaMemcpyDeviceToHost);
  }
  return (cudaMemcpyFromSymbol)(dst, sym, n, off, kind);
}
template <class T>
inline cudaError_t from_symbol_async(const char *file, unsigned line, void *dst, const T &sym, size_t n,
                                     size_t off = 0, cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                     cudaStream_t s = nullptr) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  if (captured(file, line, "cudaMemcpyFromSymbolAsync", s))
    return (cudaMemcpyFromSymbolAsync)(dst, sym, n, off, kind, s);
  if (off + n <= sizeof(T)) {
    Relation &r = relation();
    std::lock_guard<std::recursive_mutex> hold(r.m);
    issue(r, agent_of(r, s), copy_op("cudaMemcpyFromSymbolAsync", file, line, dst, symbol_address(sym) + off, n));
  }
  return (cudaMemcpyFromSymbolAsync)(dst, sym, n, off, kind, s);
}

inline cudaError_t memcpy_peer(const char *file, unsigned line, void *dst, int dd, const void *src, int sd, size_t n) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    issue(r, default_stream(r), copy_op("cudaMemcpyPeer", file, line, dst, src, n));
  }
  return (cudaMemcpyPeer)(dst, dd, src, sd, n);
}
inline cudaError_t memcpy_peer_async(const char *file, unsigned line, void *dst, int dd, const void *src, int sd,
                                     size_t n, cudaStream_t s = nullptr) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  if (captured(file, line, "cudaMemcpyPeerAsync", s)) return (cudaMemcpyPeerAsync)(dst, dd, src, sd, n, s);
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    issue(r, agent_of(r, s), copy_op("cudaMemcpyPeerAsync", file, line, dst, src, n));
  }
  return (cudaMemcpyPeerAsync)(dst, dd, src, sd, n, s);
}

// The bytes [lo, hi) leave every operation's footprint (memory freed: hirace/host_stream_copies.h).
inline void forget(Relation &r, uintptr_t lo, uintptr_t hi) {
  for (Op &x : r.live)
    for (auto &v : x.fp.of) {
      std::vector<Span> kept;
      for (const Span &s : v) {
        if (s.hi <= lo || s.lo >= hi) {
          kept.push_back(s);
          continue;
        }
        if (s.lo < lo) kept.push_back(Span{s.lo, lo});
        if (s.hi > hi) kept.push_back(Span{hi, s.hi});
      }
      v.swap(kept);
    }
}

inline cudaError_t malloc_async(const char *api, const char *name, const char *file, unsigned line, void **where,
                                size_t n, cudaStream_t s) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  cudaError_t e = host::allocate(kDeviceAlloc, name, file, line, where, n);
  if (e != cudaSuccess || !where || !*where || !n) return e;
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  Op x{api, "", file, line, 0, 0, {}};
  add_span(x.fp, footprint::kWrite, *where, n);
  issue(r, agent_of(r, s), std::move(x));
  return e;
}
inline cudaError_t free_async(const char *file, unsigned line, void *p, cudaStream_t s) {
  access::Call call;   // (host_access.h: every page open while the call runs)
  Relation &r = relation();
  {
    std::lock_guard<std::recursive_mutex> hold(r.m);
    uintptr_t base;
    int b = p ? buffer_at(uintptr_t(p), &base) : -1;
    if (b >= 0 && base == uintptr_t(p)) {
      const uintptr_t hi = base + host::state().buffers[size_t(b)].size;
      Op x{"cudaFreeAsync", "", file, line, 0, 0, {}};
      x.fp.of[footprint::kWrite].push_back(Span{base, hi});
      issue(r, agent_of(r, s), std::move(x));
      forget(r, base, hi);
    }
  }
  return host::release(kDeviceAlloc, p);
}

}  // namespace streams
}  // namespace hirace

#define cudaMemcpy2D(...) hirace_streams::memcpy2d(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemcpy2DAsync(...) hirace_streams::memcpy2d_async(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemset2D(...) hirace_streams::memset2d(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemset2DAsync(...) hirace_streams::memset2d_async(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemcpyToSymbol(...) hirace_streams::to_symbol(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemcpyToSymbolAsync(...) hirace_streams::to_symbol_async(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemcpyFromSymbol(...) hirace_streams::from_symbol(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemcpyFromSymbolAsync(...) hirace_streams::from_symbol_async(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemcpyPeer(...) hirace_streams::memcpy_peer(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemcpyPeerAsync(...) hirace_streams::memcpy_peer_async(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMallocAsync(p, n, s) hirace_streams::malloc_async("cudaMallocAsync", #p, __FILE__, __LINE__, (void **)(p), n, s)
#define cudaMallocFromPoolAsync(p, n, pool, s) \
  hirace_streams::malloc_async("cudaMallocFromPoolAsync", #p, __FILE__, __LINE__, (void **)(p), n, s)
#define cudaFreeAsync(p, s) hirace_streams::free_async(__FILE__, __LINE__, (void *)(p), s)
#endif  // HIRACE_HOST_STREAM_COPIES_H
