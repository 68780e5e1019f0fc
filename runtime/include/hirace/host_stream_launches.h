// A kernel launch that ran, as an operation of the stream relation (host_streams.h, HIRACE_STREAMS=1): its
// footprint from the words its checks noted (stream_footprint.h), issued on its stream.
// - cpu backend: cudaemu's g_launch_done hook gives the launch (its kernel, line and stream) once its grid ran.
// - gpu backend: the planner puts `launch_site(__FILE__, __LINE__)` before a launch's bracket and
//   `launch_stream(s)` around the stream it names (hirace/planner.py); host_launch.h asks `prepare` for the
//   footprint arrays before the range table, waits for every launch, and then `take` reads back the arrays
//   of the buffers the launch touched (a flag per buffer), clears them, and issues the launch.
#ifndef HIRACE_HOST_STREAM_LAUNCHES_H
#define HIRACE_HOST_STREAM_LAUNCHES_H

#include <type_traits>

namespace hirace {
namespace streams {

// The runs of set bits of one use's array of buffer `buffer` (a bit per shadow word, `n64` words), as spans
// of x's footprint.
inline void add_bits(Op &x, unsigned buffer, unsigned use, const uint64_t *bits, size_t n64) {
  const auto &bufs = host::state().buffers;
  if (buffer >= bufs.size()) return;
  const uintptr_t base = uintptr_t(bufs[buffer].base);
  const size_t size = bufs[buffer].size, words = n64 * 64;
  for (size_t w = 0; w < words;) {
    if (!(bits[w / 64] >> (w % 64) & 1)) {
      w = (bits[w / 64] >> (w % 64)) ? w + 1 : (w / 64 + 1) * 64;
      continue;
    }
    size_t e = w;
    while (e < words && (bits[e / 64] >> (e % 64) & 1)) ++e;
    uintptr_t lo = base + (uintptr_t(w) << host::kShift), hi = std::min(base + size, base + (uintptr_t(e) << host::kShift));
    if (lo < hi) x.fp.of[use].push_back(Span{lo, hi});
    w = e;
  }
}

// The launch x, its footprint added, issued on `stream`.
inline void launch_ran(Op x, cudaStream_t stream) {
  Relation &r = relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  sort_spans(x.fp);
  issue(r, agent_of(r, stream), std::move(x));
}

#if defined(CUDAEMU)
// A launch that ran (cudaemu's g_launch_done): its footprint, from the words its checks noted.
inline void kernel_done(const ::cudaemu::detail::Launch &L) {
  Op x{"kernel", L.name ? L.name : "?", L.file ? L.file : "", unsigned(L.line), 0, 0, {}};
  for (const footprint::Touched &t : footprint::touched())
    for (unsigned u = 0; u < footprint::kUses; ++u) add_bits(x, t.buffer, u, t.bits[u].data(), t.bits[u].size());
  footprint::forget();   // (the next launch's begins empty)
  launch_ran(std::move(x), L.stream);
}

inline const bool kHooked = (::cudaemu::detail::g_launch_done = &kernel_done, true);
#else
struct DeviceFootprints {
  std::vector<unsigned long long *> arrays;   // per buffer id: its three arrays in device memory (null: none)
  std::vector<size_t> n64;                    // per buffer id: 64-bit words of each array
  unsigned long long **d_table = nullptr;     // the arrays' pointers, on the device
  unsigned *d_touched = nullptr;              // per buffer id: set by a launch that touched it
  size_t cap = 0;                             // entries of both
  bool dirty = true;                          // d_table differs from arrays
  // the launch being made (launch_site, launch_stream)
  const char *file = "";
  unsigned line = 0;
  cudaStream_t stream = nullptr;
};
inline DeviceFootprints &device_footprints() {
  static DeviceFootprints *d = new DeviceFootprints;   // (never destroyed: launches may come at exit)
  return *d;
}

// The planner's calls around a launch: where it is, and the stream it names (the launch's own argument,
// evaluated once, passed on).
inline void launch_site(const char *file, unsigned line) {
  DeviceFootprints &d = device_footprints();
  d.file = file;
  d.line = line;
  d.stream = nullptr;   // (a launch that names no stream: the default stream)
}
template <class S> inline S launch_stream(S s) {
  device_footprints().stream = static_cast<cudaStream_t>(s);
  return s;
}
// (a stream given as an integer can only be 0: the default stream, passed on as one)
inline cudaStream_t launch_stream(int) {
  device_footprints().stream = nullptr;
  return nullptr;
}
inline cudaStream_t launch_stream(long) { return launch_stream(0); }
inline cudaStream_t launch_stream(std::nullptr_t) { return launch_stream(0); }

inline bool is_tool_memory(const void *p) {
  for (const auto &t : host::state().tool_memory)
    if (t.first == p) return true;
  return false;
}

// Before a launch, ahead of its range table: an array set for every live buffer of the program, those of
// buffers gone freed, the table on the device.
inline void prepare(unsigned long long *const **table, unsigned **touched) {
  DeviceFootprints &d = device_footprints();
  host::State &s = host::state();
  const size_t n = s.buffers.size();
  if (d.arrays.size() < n) {
    d.arrays.resize(n, nullptr);
    d.n64.resize(n, 0);
  }
  for (size_t i = 0; i < n; ++i) {
    const host::Buffer &b = s.buffers[i];
    const bool want = b.live && b.shadow;
    if (d.arrays[i] && (!want || !is_tool_memory(d.arrays[i]))) {   // (a device reset freed it already)
      if (is_tool_memory(d.arrays[i])) host::tool_free(d.arrays[i]);
      d.arrays[i] = nullptr;
      d.dirty = true;
    }
    if (want && !d.arrays[i]) {
      d.n64[i] = size_t(footprint::bit_words(b.size, host::kShift));
      const size_t bytes = std::max<size_t>(footprint::kUses * d.n64[i] * 8, 8);
      d.arrays[i] = static_cast<unsigned long long *>(host::tool_alloc(bytes, "launch footprints (streams)"));
      host::check_cuda((cudaMemset)(d.arrays[i], 0, bytes), "launch footprint reset");
      d.dirty = true;
    }
  }
  if (d.d_table && !is_tool_memory(d.d_table)) {   // (a device reset)
    d.d_table = nullptr;
    d.d_touched = nullptr;
    d.cap = 0;
    d.dirty = true;
  }
  if (n > d.cap || !d.d_table) {
    if (d.d_table) host::tool_free(d.d_table);
    if (d.d_touched) host::tool_free(d.d_touched);
    d.cap = std::max<size_t>(std::max<size_t>(n, 16), 2 * d.cap);
    d.d_table = static_cast<unsigned long long **>(host::tool_alloc(d.cap * sizeof(void *), "launch footprints (streams)"));
    d.d_touched = static_cast<unsigned *>(host::tool_alloc(d.cap * sizeof(unsigned), "launch footprints (streams)"));
    host::check_cuda((cudaMemset)(d.d_touched, 0, d.cap * sizeof(unsigned)), "launch footprint reset");
    d.dirty = true;
  }
  if (d.dirty) {
    std::vector<unsigned long long *> t(d.cap, nullptr);
    std::copy(d.arrays.begin(), d.arrays.end(), t.begin());
    host::check_cuda((cudaMemcpy)(d.d_table, t.data(), d.cap * sizeof(void *), cudaMemcpyHostToDevice),
                     "launch footprint table copy");
    d.dirty = false;
  }
  *table = d.d_table;
  *touched = d.d_touched;
}

// After a launch, once it ran (host_launch.h waited for it): its footprint, read back and cleared, issued.
inline void take(bool failed) {
  DeviceFootprints &d = device_footprints();
  host::State &s = host::state();
  const char *file = d.file;
  const unsigned line = d.line;
  cudaStream_t stream = d.stream;
  launch_site("", 0);   // (the next launch says its own)
  if (!d.d_touched) return;
  std::vector<unsigned> touched(d.cap, 0);
  host::check_cuda((cudaMemcpy)(touched.data(), d.d_touched, d.cap * sizeof(unsigned), cudaMemcpyDeviceToHost),
                   "launch footprint copy");
  Op x{"kernel", s.launches.empty() ? "?" : s.launches.back().kernel, file, line, 0, 0, {}};
  bool any = false;
  std::vector<uint64_t> bits;
  for (size_t i = 0; i < touched.size() && i < d.arrays.size(); ++i) {
    if (!touched[i] || !d.arrays[i]) continue;
    any = true;
    const size_t n = d.n64[i];
    bits.assign(footprint::kUses * n, 0);
    host::check_cuda((cudaMemcpy)(bits.data(), d.arrays[i], bits.size() * 8, cudaMemcpyDeviceToHost),
                     "launch footprint copy");
    host::check_cuda((cudaMemset)(d.arrays[i], 0, bits.size() * 8), "launch footprint reset");
    for (unsigned u = 0; u < footprint::kUses; ++u) add_bits(x, unsigned(i), u, bits.data() + u * n, n);
  }
  if (any) host::check_cuda((cudaMemset)(d.d_touched, 0, d.cap * sizeof(unsigned)), "launch footprint reset");
  if (failed) return;   // (the kernel never ran: no operation)
  launch_ran(std::move(x), stream);
}

inline const bool kHooked = (host::g_footprint_prepare = &prepare, host::g_footprint_take = &take, true);
#endif

}  // namespace streams
}  // namespace hirace

#endif  // HIRACE_HOST_STREAM_LAUNCHES_H
