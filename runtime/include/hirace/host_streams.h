// Races between operations the host does not order (cpu backend, HIRACE_STREAMS=1: hirace/planner.py
// builds a program that uses streams, events or asynchronous copies so). A happens-before relation over
// the CUDA API calls as the program makes them, with vector clocks as ThreadSanitizer keeps them: a clock
// per stream (the legacy default stream, each host thread's per-thread default stream, every stream the
// program creates) and one for the host; an operation (a kernel launch, a copy, a set, a host function)
// is enqueued on a stream, takes what the host and its stream know, and ticks the stream's own entry.
// Operation B is ordered after A when B's clock, as B is enqueued, covers A's tick. Every pair of
// operations it does not order is compared: each one's footprint (a launch's words read, written and
// touched by atomics, from hirace's checks: stream_footprint.h; a copy's or set's byte ranges), and a
// pair that touches the same bytes, one writing, is a race, written to the log at exit (`stream_race`).
//
// The rules (the CUDA Runtime API's "API synchronization behavior" and "Stream synchronization
// behavior"; where the documents leave latitude, the weaker order, so that no race is hidden):
// - the legacy default stream waits for all earlier work of every blocking stream, and a blocking stream
//   (cudaStreamCreate, without cudaStreamNonBlocking; a per-thread default stream) for all earlier work
//   of the legacy default stream; a non-blocking stream orders with neither;
// - cudaStreamSynchronize, a cudaStreamQuery that returned cudaSuccess: the host knows what the stream
//   knows; cudaDeviceSynchronize (and cudaFree, which synchronises the device): what every stream knows;
// - cudaEventRecord(e, s): e keeps the stream's clock; cudaStreamWaitEvent(s, e): s takes it;
//   cudaEventSynchronize(e) and a cudaEventQuery(e) that returned cudaSuccess: the host takes it;
// - cudaMemcpy is an operation of the default stream (per-thread where CUDA_API_PER_THREAD_DEFAULT_STREAM
//   is defined) after which the host knows it done, except device to device (no host synchronisation)
//   and pageable host to device (the call returns once the data is staged; its DMA may be in flight:
//   taken as not done); from pageable memory the default stream is synchronised first;
// - cudaMemset: an operation of the default stream, not done for the host unless it sets pinned host
//   memory; cudaMemcpyAsync, cudaMemsetAsync: operations of their stream, never done for the host
//   (the documents allow a pageable copy to be synchronous, and promise it nowhere);
// - cudaLaunchHostFunc, cudaStreamAddCallback: operations of their stream (their own host accesses are
//   not checked);
// - host threads share one clock: what one thread's calls ordered counts for the others (no race between
//   two host threads' operations is reported that only the threads' own synchronisation would order).
// Execution stays serial (cudaemu runs each operation when it is issued): the verdict comes from the
// relation, not from an interleaving, so it is the same on every run and holds for what ran.
// On the gpu backend the same relation, from the same hooks: each launch is waited for before the program
// goes on (host_launch.h), its footprint read back from device memory (stream_footprint.h), so a verdict is
// the cpu backend's; host accesses of managed and pinned memory are watched there too (host_access.h). What it
// does not follow there: the nodes of CUDA graphs (not operations of the relation; hirace/planner.py says so).
#ifndef HIRACE_HOST_STREAMS_H
#define HIRACE_HOST_STREAMS_H

#if HIRACE_STREAMS
#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <vector>
#include <thread>
#include <unordered_map>

#include "host_state.h"
#include "stream_footprint.h"

namespace hirace {
namespace streams {

using Clock = std::vector<unsigned>;   // an entry per stream (Agent)
inline void join(Clock &a, const Clock &b) {
  if (a.size() < b.size()) a.resize(b.size(), 0);
  for (size_t i = 0; i < b.size(); ++i) a[i] = std::max(a[i], b[i]);
}

struct Span {   // the bytes [lo, hi) an operation touched one way (footprint::Use)
  uintptr_t lo, hi;
};
struct Footprint {
  std::vector<Span> of[footprint::kUses];   // each sorted, and merged where spans meet
};

struct Agent {   // a stream
  std::string name;
  bool blocking;     // orders with the legacy default stream
  Clock clock;
};

struct Op {
  std::string op, kernel, file;   // the API call (or "kernel") and the kernel's name, where it was issued
  unsigned line, agent, tick;
  Footprint fp;
};

struct Found {   // a race: the two operations, the buffer (-1: untracked) and the bytes
  const Op *a, *b;
  int buffer;
  uintptr_t lo, hi;
  unsigned ua, ub;
};

struct Logged {
  std::string fields[12];
  unsigned line_a, line_b;
  int buffer;
  unsigned long long offset, size;
  unsigned count;
};

constexpr unsigned kLegacy = 0;            // the legacy default stream's agent
constexpr size_t kLiveOps = 1 << 14;      // operations kept unordered with the host before the oldest go

struct Relation {
  std::recursive_mutex m;
  std::vector<Agent> agents{Agent{"legacy default stream", true, {}}};
  std::unordered_map<const void *, unsigned> by_stream;            // a created stream -> its agent
  std::unordered_map<std::thread::id, unsigned> per_thread;         // a host thread's per-thread default stream
  std::unordered_map<const void *, Clock> events;                   // an event's clock at its last record
  Clock host;                                                       // what the host knows is done
  std::vector<Op> live;                                             // operations the host does not know done
  std::vector<Logged> logged;
  bool told_dropped = false;
};

inline Relation &relation() {
  static Relation *r = new Relation;   // never destroyed: the log is written at exit
  return *r;
}

inline unsigned per_thread_stream(Relation &r) {
  auto it = r.per_thread.find(std::this_thread::get_id());
  if (it != r.per_thread.end()) return it->second;
  r.agents.push_back(Agent{"per-thread default stream", true, {}});
  return r.per_thread[std::this_thread::get_id()] = unsigned(r.agents.size() - 1);
}

// The agent of a stream handle as the program passes it (one the relation has not seen: a blocking
// stream of its own, named by its address).
inline unsigned agent_of(Relation &r, cudaStream_t s) {
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
  if (s == nullptr) return per_thread_stream(r);
#else
  if (s == nullptr) return kLegacy;
#endif
  if (s == cudaStreamLegacy) return kLegacy;
  if (s == cudaStreamPerThread) return per_thread_stream(r);
  auto it = r.by_stream.find((const void *)s);
  if (it != r.by_stream.end()) return it->second;
  char name[64];
  std::snprintf(name, sizeof name, "stream %p", (const void *)s);
  r.agents.push_back(Agent{name, true, {}});
  return r.by_stream[(const void *)s] = unsigned(r.agents.size() - 1);
}
inline unsigned default_stream(Relation &r) { return agent_of(r, nullptr); }

// Enqueue on stream `a`: it waits for what the host issued before (and, by the legacy stream's rules,
// for the other side's earlier work), and ticks its own entry.
inline unsigned enqueue(Relation &r, unsigned a) {
  Agent &s = r.agents[a];
  join(s.clock, r.host);
  if (a == kLegacy) {
    for (size_t i = 1; i < r.agents.size(); ++i)
      if (r.agents[i].blocking) join(r.agents[kLegacy].clock, r.agents[i].clock);
  } else if (s.blocking) {
    join(s.clock, r.agents[kLegacy].clock);
  }
  Agent &t = r.agents[a];   // (no agent was added above: still valid)
  if (t.clock.size() <= a) t.clock.resize(a + 1, 0);
  return ++t.clock[a];
}

inline bool ordered(const Clock &c, const Op &x) { return x.agent < c.size() && c[x.agent] >= x.tick; }

// The host knows more: operations it now knows done can race with nothing issued later.
inline void host_learns(Relation &r, const Clock &c) {
  join(r.host, c);
  r.live.erase(std::remove_if(r.live.begin(), r.live.end(), [&](const Op &x) { return ordered(r.host, x); }),
               r.live.end());
}

// The overlaps of two sorted span lists.
inline void overlaps(const std::vector<Span> &x, const std::vector<Span> &y, std::vector<Span> *out) {
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    uintptr_t lo = std::max(x[i].lo, y[j].lo), hi = std::min(x[i].hi, y[j].hi);
    if (lo < hi) out->push_back(Span{lo, hi});
    if (x[i].hi < y[j].hi) ++i; else ++j;
  }
}

// The buffer of the program holding `p` (-1: none hirace tracks) and its start.
inline int buffer_at(uintptr_t p, uintptr_t *base) {
  const auto &bufs = host::state().buffers;
  for (size_t i = bufs.size(); i-- > 0;)
    if (bufs[i].live && p >= uintptr_t(bufs[i].base) && p < uintptr_t(bufs[i].base) + bufs[i].size) {
      *base = uintptr_t(bufs[i].base);
      return int(i);
    }
  *base = 0;
  return -1;
}

inline const char *use_name(unsigned u) { return u == footprint::kRead ? "read" : u == footprint::kWrite ? "write" : "atomic"; }

// A race between a (earlier) and b, noted once per pair of places and buffer.
inline void note(Relation &r, const Op &a, const Op &b, int buffer, uintptr_t lo, uintptr_t hi, unsigned ua,
                 unsigned ub, uintptr_t base) {
  for (Logged &x : r.logged)
    if (x.buffer == buffer && x.line_a == a.line && x.line_b == b.line && x.fields[2] == a.file &&
        x.fields[8] == b.file && x.fields[0] == a.op && x.fields[6] == b.op) {
      ++x.count;
      return;
    }
  Logged x{{a.op, a.kernel, a.file, r.agents[a.agent].name, use_name(ua), "", b.op, b.kernel, b.file,
            r.agents[b.agent].name, use_name(ub), ""},
           a.line, b.line, buffer, (unsigned long long)(lo - base), (unsigned long long)(hi - lo), 1u};
  r.logged.push_back(x);
}

// Compare operation b with every earlier one its clock does not cover.
inline void check_against(Relation &r, const Op &b) {
  const Clock &c = r.agents[b.agent].clock;
  // the pairs that conflict: a write with anything, an atomic with a read (atomics with atomics do not)
  static const unsigned pairs[][2] = {{footprint::kWrite, footprint::kWrite}, {footprint::kWrite, footprint::kRead},
                                      {footprint::kRead, footprint::kWrite},  {footprint::kWrite, footprint::kAtomic},
                                      {footprint::kAtomic, footprint::kWrite}, {footprint::kAtomic, footprint::kRead},
                                      {footprint::kRead, footprint::kAtomic}};
  for (const Op &a : r.live) {
    if (ordered(c, a)) continue;
    // per buffer: the first conflicting pair of uses in the order above (writes first), and the hull of
    // every overlap of that buffer
    std::map<int, Found> found;
    for (const auto &p : pairs) {
      std::vector<Span> o;
      overlaps(a.fp.of[p[0]], b.fp.of[p[1]], &o);
      for (const Span &s : o) {
        uintptr_t base;
        int buf = buffer_at(s.lo, &base);
        auto it = found.find(buf);
        if (it == found.end()) {
          found.emplace(buf, Found{&a, &b, buf, s.lo, s.hi, p[0], p[1]});
        } else {
          it->second.lo = std::min(it->second.lo, s.lo);
          it->second.hi = std::max(it->second.hi, s.hi);
        }
      }
    }
    for (const auto &kv : found) {
      uintptr_t base;
      buffer_at(kv.second.lo, &base);
      note(r, a, b, kv.first, kv.second.lo, kv.second.hi, kv.second.ua, kv.second.ub, base);
    }
  }
}

// Issue operation `x` on stream agent `a`: ordered, compared, kept until the host knows it done.
inline void issue(Relation &r, unsigned a, Op x) {
  x.agent = a;
  x.tick = enqueue(r, a);
  check_against(r, x);
  if (r.live.size() >= kLiveOps) {
    r.live.erase(r.live.begin());
    if (!r.told_dropped) {
      r.told_dropped = true;
      std::fprintf(stderr, "hirace: warning: more than %zu operations were issued without a synchronisation that "
                   "completes them; the oldest are no longer compared with later ones\n", kLiveOps);
    }
  }
  r.live.push_back(std::move(x));
}

inline void add_span(Footprint &f, unsigned use, const void *p, size_t n) {
  if (n) f.of[use].push_back(Span{uintptr_t(p), uintptr_t(p) + n});
}
// Each use's spans in address order (what the pair checks walk), once an operation's spans are all added.
inline void sort_spans(Footprint &f) {
  for (auto &v : f.of) std::sort(v.begin(), v.end(), [](const Span &p, const Span &q) { return p.lo < q.lo; });
}

// Where a pointer lies, for the rules of synchronous copies: device (or managed) memory, pinned host
// memory (cudaMallocHost, cudaHostAlloc), or pageable host memory (anything else).
enum Memory { kDevice, kPinned, kPageable };
inline Memory memory_of(const void *p) {
  uintptr_t base;
  int b = buffer_at(uintptr_t(p), &base);
  if (b < 0) return kPageable;
  const int kind = host::state().buffers[size_t(b)].kind;
  return kind == kHostAlloc || kind == kRegistered ? kPinned : kDevice;
}

}  // namespace streams
}  // namespace hirace

#include "host_access.h"         // host accesses of managed and pinned memory meanwhile
#include "host_stream_launches.h"  // a launch that ran: its footprint, an operation of its stream
#include "host_stream_hooks.h"   // what the program's calls become
#include "host_graphs.h"         // CUDA graphs and stream capture
#include "host_stream_copies.h"  // 2D, symbol and peer copies; stream-ordered allocation
#endif  // HIRACE_STREAMS

#endif  // HIRACE_HOST_STREAMS_H
