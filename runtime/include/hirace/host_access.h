// Host accesses of managed and pinned memory (HIRACE_STREAMS=1; x86-64 Linux; both backends): a read or
// write by host code of memory from cudaMallocManaged, a __managed__ variable, cudaMallocHost or
// cudaHostAlloc (mapped included: cudaHostGetDevicePointer gives the same bytes) while an operation that
// touches those bytes (a launch, a copy, a set: host_streams.h) is not yet ordered for the host.
//
// By page protection (docs/hirace.md says why): when the host returns from a CUDA call (`leave`), the pages
// holding bytes of the operations the host does not know done (the relation's `live` operations, their
// exact footprints) in watched memory are made inaccessible (mprotect PROT_NONE). A host access there
// faults; the handler looks the byte up in the operations' spans (read vs write from the fault's error
// code, REG_ERR bit 1), notes a hit for each operation it conflicts with, opens the page and single-steps
// the instruction (the trap flag: SIGTRAP), after which the page is closed again. Every CUDA call that
// may touch memory or order operations enters first (`Call`, `enter`): every page is opened (on the cpu
// backend the emulated device is host memory: kernels and copies run inside the call) and the hits are
// turned into races against the operations they met (`settle`), while nothing has changed them. The
// handlers touch only memory of their own (an mmap'd table, its anchor on a page of its own) and the
// stack, take no lock and allocate nothing. A fault elsewhere is passed on to the handler installed before
// (the program's, or cudaemu's), or repeats with the default action: a real crash stays a crash.
//
// On the gpu backend the protection is the host's page tables only: the device reaches pinned memory by
// DMA and managed memory through its own mappings, which PROT_NONE leaves alone (and every launch is waited
// for inside its bracket, pages open: host_launch.h). Host functions on streams (cudaLaunchHostFunc,
// cudaStreamAddCallback) run on the driver's threads, not inside a call: their threads are marked while
// they run (`InCallback`) and their accesses stepped over, not compared (as on the cpu backend, a host
// function's own accesses are not checked: host_streams.h).
#ifndef HIRACE_HOST_ACCESS_H
#define HIRACE_HOST_ACCESS_H

#if HIRACE_STREAMS
// (HIRACE_HOST_ACCESS=0: not built: a program with no managed or pinned memory, hirace/planner.py; and for
// measuring its cost: bench/host_access/)
#if HIRACE_HOST_ACCESS && defined(__x86_64__) && defined(__linux__)
#define HIRACE_HOST_ACCESS_WATCH 1
#else
#define HIRACE_HOST_ACCESS_WATCH 0
#endif

#include <atomic>
#include <cerrno>
#include <csignal>
#include <new>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "cudacommon/source_line.h"
#include "host_access_faults.h"   // the table and the fault handlers

namespace hirace {
namespace access {

// __managed__ variables: the planner registers each (their buffers are the __device__ variables' ones)
inline std::vector<const void *> &managed_vars() {
  static std::vector<const void *> v;
  return v;
}
struct ManagedVar {
  explicit ManagedVar(const void *p) { managed_vars().push_back(p); }
};

#if HIRACE_HOST_ACCESS_WATCH

inline void place_of_marker() {}

// Whether code address `pc` lies in the program (the executable, or the library it was built as, that
// holds this header's code), not in a library it calls
inline bool in_program(uintptr_t pc) {
  Dl_info here, there;
  return dladdr(reinterpret_cast<const void *>(&place_of_marker), &here) &&
         dladdr(reinterpret_cast<const void *>(pc), &there) && here.dli_fbase == there.dli_fbase;
}

// The host access's place: its instruction's line in the program, else (an access inside a library:
// libc's memcpy, a leaf function) its caller's; "" when neither is known.
inline std::string place_of(uintptr_t pc, uintptr_t ret) {
  static std::map<uintptr_t, std::string> *known = new std::map<uintptr_t, std::string>;
  auto it = known->find(pc);
  if (it != known->end()) return it->second;
  char buf[1024] = "";
  const bool library = !in_program(pc) && ret && in_program(ret - 1);
  ::cctk::source_line(reinterpret_cast<const void *>(library ? ret - 1 : pc), buf, sizeof buf);
  return (*known)[pc] = buf;
}

// The hits since the last call, as races between their operation and the host access (the relation's
// live operations are the ones the table was made from: nothing has changed them since).
inline void settle(Table *t) {
  streams::Relation &r = streams::relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  for (Hit &h : t->hits) {
    if (!h.pc) continue;
    const streams::Op *op = nullptr;
    for (const streams::Op &x : r.live)
      if (x.agent == h.agent && x.tick == h.tick) op = &x;
    if (op) {
      std::string place = place_of(h.pc, h.ret);
      size_t colon = place.rfind(':');
      std::string file = colon == std::string::npos ? "" : place.substr(0, colon);
      unsigned line = colon == std::string::npos ? 0u : unsigned(std::strtoul(place.c_str() + colon + 1, nullptr, 10));
      uintptr_t base;
      int buffer = streams::buffer_at(h.addr, &base);
      const char *how = h.write ? "host write" : "host read";
      bool seen = false;
      for (streams::Logged &x : r.logged)
        if (x.buffer == buffer && x.line_a == op->line && x.line_b == line && x.fields[2] == op->file &&
            x.fields[8] == file && x.fields[0] == op->op && x.fields[6] == how) {
          x.count += unsigned(h.count);
          seen = true;
          break;
        }
      if (!seen)
        r.logged.push_back(streams::Logged{{op->op, op->kernel, op->file, r.agents[op->agent].name,
                                            streams::use_name(h.use), "", how, "", file, "host",
                                            h.write ? "write" : "read", ""},
                                           op->line, line, buffer, (unsigned long long)(h.addr - base), 1ull,
                                           unsigned(h.count)});
    }
    h = Hit{};
  }
}

// Whether the buffer holding `p` is watched: managed or pinned (cudaMallocHost, cudaHostAlloc, cudaHostRegister),
// or a __managed__ variable; and the pages hirace may close for it, [*lo, *hi): every page it touches, but of
// registered memory (the program's own, which may share its first and last pages with other data: a system
// call given those, or libc's, would fail) only the pages wholly inside it.
inline bool watched(uintptr_t p, uintptr_t page, uintptr_t *lo, uintptr_t *hi) {
  uintptr_t base;
  int b = streams::buffer_at(p, &base);
  if (b < 0) return false;
  const host::Buffer &buf = host::state().buffers[size_t(b)];
  bool yes = host_reachable(buf.kind);
  for (const void *v : managed_vars()) yes |= v == buf.base;
  if (!yes) return false;
  const uintptr_t end = base + buf.size;
  if (buf.kind == kRegistered) {
    *lo = (base + page - 1) & ~(page - 1);
    *hi = end & ~(page - 1);
  } else {
    *lo = base & ~(page - 1);
    *hi = (end + page - 1) & ~(page - 1);
  }
  return true;
}

inline bool grow(void **p, size_t *cap, size_t want, size_t each) {
  if (want <= *cap) return true;
  size_t n = std::max<size_t>(want, 2 * *cap + 256);
  void *q = map(n * each);
  if (!q) return false;
  if (*p) {
    std::memcpy(q, *p, *cap * each);
    munmap(*p, *cap * each);
  }
  *p = q;
  *cap = n;
  return true;
}

// The depth (g_anchor: the calls under way in all host threads) changes under this lock, as the pages open
// and close, so that no thread's call runs while another thread, leaving the last call, closes pages
// (simpleCallback's threads each copy into their pinned buffer: such a copy into a page closed meanwhile
// crashed the program). Taken before the relation's lock, never while holding it (a hook's Call is made
// before it takes that lock and ends after it lets it go).
inline std::recursive_mutex &pages_lock() {
  static std::recursive_mutex *m = new std::recursive_mutex;   // (never destroyed: calls may come at exit)
  return *m;
}

// A CUDA call begins: every page open, the hits settled
inline void enter() {
  std::lock_guard<std::recursive_mutex> order(pages_lock());
  Table *t = g_anchor.t;
  if (g_anchor.depth.fetch_add(1) != 0 || !t) return;   // (no table: nothing was ever closed)
  // (the runs stay, marked open, until the next leave replaces them: a fault taken on one of these pages just
  // before they opened still finds its run, and another thread's step that closes its page again meanwhile
  // opens it again: host_access_faults.h on_trap)
  for (size_t i = 0; i < t->n_runs; ++i) {
    __atomic_store_n(&t->runs[i].open, 1, __ATOMIC_SEQ_CST);
    mprotect(reinterpret_cast<void *>(t->runs[i].lo), t->runs[i].hi - t->runs[i].lo, PROT_READ | PROT_WRITE);
  }
  settle(t);
}

// The call returns to the program: the pages of what the host does not know done closed
inline void leave() {
  std::lock_guard<std::recursive_mutex> order(pages_lock());   // (before the depth changes: enter)
  if (g_anchor.depth.fetch_sub(1) != 1) return;
  Table *t = g_anchor.t;
  streams::Relation &r = streams::relation();
  std::lock_guard<std::recursive_mutex> hold(r.m);
  if (r.live.empty()) return;
  bool any = !managed_vars().empty();
  for (const host::Buffer &b : host::state().buffers) any |= b.live && host_reachable(b.kind);
  if (!any) return;   // (no watched memory: nothing to close)
  if (!t && !(t = table())) return;
  std::vector<Entry> es;
  std::vector<Run> pages;   // each entry's pages, within what its buffer lets hirace close
  for (const streams::Op &x : r.live)
    for (unsigned u = 0; u < footprint::kUses; ++u)
      for (const streams::Span &s : x.fp.of[u]) {
        uintptr_t lo = 0, hi = 0;
        if (!watched(s.lo, t->page, &lo, &hi)) continue;
        es.push_back(Entry{s.lo, s.hi, 0, x.agent, x.tick, u});
        lo = std::max(lo, s.lo & ~(t->page - 1));
        hi = std::min(hi, (s.hi + t->page - 1) & ~(t->page - 1));
        if (lo < hi) pages.push_back(Run{lo, hi, 0, 0});
      }
  if (es.empty()) return;
  std::sort(es.begin(), es.end(), [](const Entry &p, const Entry &q) { return p.lo < q.lo; });
  uintptr_t reach = 0;
  for (Entry &e : es) e.maxhi = reach = std::max(reach, e.hi);
  std::sort(pages.begin(), pages.end(), [](const Run &p, const Run &q) { return p.lo < q.lo; });
  std::vector<Run> runs;
  for (const Run &g : pages) {
    if (!runs.empty() && g.lo <= runs.back().hi) runs.back().hi = std::max(runs.back().hi, g.hi);
    else runs.push_back(g);
  }
  if (runs.empty()) return;
  if (!grow(reinterpret_cast<void **>(&t->entries), &t->cap_entries, es.size(), sizeof(Entry)) ||
      !grow(reinterpret_cast<void **>(&t->runs), &t->cap_runs, runs.size(), sizeof(Run)))
    return;
  std::copy(es.begin(), es.end(), t->entries);
  t->n_entries = es.size();
  std::copy(runs.begin(), runs.end(), t->runs);
  install(t);
  t->n_runs = runs.size();
  for (size_t i = 0; i < runs.size(); ++i)
    mprotect(reinterpret_cast<void *>(runs[i].lo), runs[i].hi - runs[i].lo, PROT_NONE);
}

// At exit, before the log is written: every page open, the last hits settled, what was lost said
inline void finish() {
  std::lock_guard<std::recursive_mutex> order(pages_lock());
  Table *t = g_anchor.t;
  g_anchor.depth.store(0);
  enter();
  g_anchor.depth.store(1 << 20);   // (closes nothing again)
  if (!t) return;
  if (t->lost)
    std::fprintf(stderr, "hirace: warning: %lu host accesses of managed or pinned memory were not compared (more "
                 "than %zu distinct places between two CUDA calls)\n", t->lost, kHits);
  if (t->given_up)
    std::fprintf(stderr, "hirace: warning: host code accessed managed or pinned memory so often between two CUDA calls "
                 "that hirace left its pages open until the next call (%lu times): accesses after that were not "
                 "checked\n", t->given_up);
}
// A host function of a stream runs (on the gpu backend, on a thread of the driver): while it does, its
// thread's faults are stepped over, not compared (a slot of `callbacks`; with all 64 taken, which no
// driver does, its accesses would be compared as the host's)
struct InCallback {
  Stepper *slot = nullptr;
  InCallback() {
    Table *t = table();
    if (!t) return;
    const long tid = long(syscall(SYS_gettid));
    for (unsigned i = 0; !slot && i < kSteppers; ++i) {
      long none = 0;
      if (__atomic_compare_exchange_n(&t->callbacks[i].tid, &none, tid, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        slot = &t->callbacks[i];
    }
  }
  ~InCallback() {
    if (slot) __atomic_store_n(&slot->tid, 0L, __ATOMIC_RELEASE);
  }
  InCallback(const InCallback &) = delete;
  InCallback &operator=(const InCallback &) = delete;
};
#else
inline void enter() {}
inline void leave() {}
// (a machine other than x86-64 Linux: nothing watched, said where there was something to watch)
inline void finish() {
#if HIRACE_HOST_ACCESS
  bool any = !managed_vars().empty();
  for (const host::Buffer &b : host::state().buffers) any |= host_reachable(b.kind);
  if (any)
    std::fprintf(stderr, "hirace: warning: the host's own reads and writes of managed and pinned memory are not checked "
                 "on this machine (hirace watches them on x86-64 Linux)\n");
#endif
}
struct InCallback {};
#endif  // HIRACE_HOST_ACCESS_WATCH

// (launches reach enter and leave through host_launch.h's pointers, which every unit shares)
inline const bool kLaunchesHooked = (host::g_access_enter = &enter, host::g_access_leave = &leave, true);

// A CUDA call of the program, from its start to its return (the hooks of host_stream_hooks.h, launches)
struct Call {
  Call() { enter(); }
  ~Call() { leave(); }
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;
};

}  // namespace access
}  // namespace hirace

// (the 2D, symbol and peer copies open every page through their hooks: host_stream_copies.h)
#endif  // HIRACE_STREAMS

#endif  // HIRACE_HOST_ACCESS_H
