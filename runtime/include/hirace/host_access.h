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
constexpr size_t kHits = 4096;           // distinct (instruction, operation, read or write) between two calls
constexpr unsigned kSteppers = 64;       // threads single-stepping at once
constexpr unsigned long kRunFaults = 4096;   // faults a run of pages takes per page before it stays open
constexpr unsigned long long kTrapFlag = 0x100;   // EFLAGS.TF

struct Entry {   // bytes [lo, hi) of watched memory a live operation touched one way; maxhi: of entries <= this
  uintptr_t lo, hi, maxhi;
  unsigned agent, tick, use;
};
struct Run {     // pages [lo, hi) closed; open: given up until the next call (too many faults)
  uintptr_t lo, hi;
  unsigned long faults;
  int open;
};
struct Hit {     // a host access that met a live operation (pc 0: a free slot)
  uintptr_t pc, ret, addr;
  unsigned agent, tick, use, write;
  unsigned long count;
};
struct Stepper { // a thread single-stepping an instruction, and the pages to close after it; or (callback)
                 // a thread running a host function of a stream (its accesses stepped over, not compared)
  long tid;
  unsigned n;
  uintptr_t pages[4];
  int callback;
};

struct Table {
  Entry *entries = nullptr;
  size_t n_entries = 0, cap_entries = 0;
  Run *runs = nullptr;
  size_t n_runs = 0, cap_runs = 0;
  Hit hits[kHits];
  Stepper steppers[kSteppers];
  Stepper callbacks[kSteppers];
  struct sigaction prev_segv, prev_trap;
  uintptr_t page = 4096;
  unsigned long lost = 0, given_up = 0;   // hits not kept (the table full); runs left open
};

// The table's address and the calls under way, on a page of their own: a protected page never holds them
// (the handlers read them first)
struct alignas(4096) Anchor {
  Table *t;
  std::atomic<int> depth;
};
inline Anchor g_anchor{nullptr, {0}};

inline void *map(size_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}
inline Table *table() {
  if (!g_anchor.t) {
    void *p = map(sizeof(Table));
    if (!p) return nullptr;
    Table *t = new (p) Table;
    t->page = uintptr_t(sysconf(_SC_PAGESIZE));
    g_anchor.t = t;
  }
  return g_anchor.t;
}

// The run holding `a`, or nullptr (binary search: runs are sorted and apart)
inline Run *run_at(Table *t, uintptr_t a) {
  size_t lo = 0, hi = t->n_runs;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (t->runs[mid].hi <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo < t->n_runs && t->runs[lo].lo <= a ? &t->runs[lo] : nullptr;
}

inline void note_hit(Table *t, uintptr_t pc, uintptr_t ret, uintptr_t addr, const Entry &e, unsigned write) {
  size_t h = (pc * 31 + e.tick * 7 + e.agent * 3 + write) % kHits;
  for (size_t i = 0; i < kHits; ++i, h = (h + 1) % kHits) {
    Hit &x = t->hits[h];
    if (x.pc == pc && x.agent == e.agent && x.tick == e.tick && x.write == write) {
      ++x.count;
      return;
    }
    if (!x.pc) {
      x = Hit{pc, ret, addr, e.agent, e.tick, e.use, write, 1};
      return;
    }
  }
  ++t->lost;
}

inline void pass_on(const struct sigaction &prev, int sig, siginfo_t *info, void *uctx) {
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) prev.sa_sigaction(sig, info, uctx);
    return;
  }
  if (prev.sa_handler == SIG_DFL || prev.sa_handler == SIG_IGN) {
    signal(sig, SIG_DFL);   // a fault repeats with the default action; a sent or trapped signal is raised again
    if (sig != SIGSEGV || info->si_code <= 0) raise(sig);
    return;
  }
  prev.sa_handler(sig);
}

inline void on_segv(int sig, siginfo_t *info, void *uctx) {
  const int saved = errno;
  Table *t = g_anchor.t;
  const uintptr_t a = uintptr_t(info->si_addr);
  Run *run = t && info->si_code == SEGV_ACCERR ? run_at(t, a) : nullptr;
  if (!run) {
    errno = saved;
    if (t) pass_on(t->prev_segv, sig, info, uctx);
    else signal(sig, SIG_DFL);
    return;
  }
  auto *uc = static_cast<ucontext_t *>(uctx);
  const uintptr_t page = a & ~(t->page - 1);
#if defined(CUDAEMU)
  // the emulated device itself (a grid run outside a bracketed call): its access, not the host's
  const auto *launch_var = &::cudaemu::detail::g_launch;
  const bool device = !run_at(t, uintptr_t(launch_var)) && *launch_var != nullptr;
#else
  const bool device = false;   // (the GPU does not fault on the host's page tables)
#endif
  const long tid = long(syscall(SYS_gettid));
  bool callback = false;   // a host function of a stream, on the driver's thread: stepped over, not compared
  for (const Stepper &x : t->callbacks)
    callback |= __atomic_load_n(&x.tid, __ATOMIC_ACQUIRE) == tid;
  if (!device && !callback) {
    const unsigned write = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1u : 0u;
    const uintptr_t pc = uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
    const uintptr_t sp = uintptr_t(uc->uc_mcontext.gregs[REG_RSP]);
    const uintptr_t ret = *reinterpret_cast<const uintptr_t *>(sp);   // a leaf function's caller (libc's memcpy)
    // the entries holding `a`: the last starting at or before it, and back while an earlier one reaches it
    size_t lo = 0, hi = t->n_entries;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (t->entries[mid].lo <= a) lo = mid + 1;
      else hi = mid;
    }
    for (size_t i = lo; i-- > 0 && t->entries[i].maxhi > a;) {
      const Entry &e = t->entries[i];
      if (a < e.hi && (write || e.use != footprint::kRead)) note_hit(t, pc, ret, a, e, write);
    }
  }
  if (device || ++run->faults > kRunFaults * ((run->hi - run->lo) / t->page)) {
    if (!device) ++t->given_up;
    mprotect(reinterpret_cast<void *>(run->lo), run->hi - run->lo, PROT_READ | PROT_WRITE);
    run->open = 1;
    errno = saved;
    return;
  }
  // open the page for this one instruction
  mprotect(reinterpret_cast<void *>(page), t->page, PROT_READ | PROT_WRITE);
  Stepper *s = nullptr;
  for (Stepper &x : t->steppers)
    if (x.tid == tid) s = &x;
  for (unsigned i = 0; !s && i < kSteppers; ++i) {
    long none = 0;
    if (__atomic_compare_exchange_n(&t->steppers[i].tid, &none, tid, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      s = &t->steppers[i];
      s->n = 0;
    }
  }
  if (s && s->n < 4) {
    s->pages[s->n++] = page;
    uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
  } else {   // (no room to step: the run stays open until the next call)
    mprotect(reinterpret_cast<void *>(run->lo), run->hi - run->lo, PROT_READ | PROT_WRITE);
    run->open = 1;
    ++t->given_up;
  }
  errno = saved;
}

inline void on_trap(int sig, siginfo_t *info, void *uctx) {
  const int saved = errno;
  Table *t = g_anchor.t;
  const long tid = long(syscall(SYS_gettid));
  Stepper *s = nullptr;
  for (unsigned i = 0; t && i < kSteppers; ++i)
    if (t->steppers[i].tid == tid) s = &t->steppers[i];
  if (!s) {
    errno = saved;
    if (t) pass_on(t->prev_trap, sig, info, uctx);
    else signal(sig, SIG_DFL), raise(sig);
    return;
  }
  for (unsigned i = 0; i < s->n; ++i) {   // closed again, unless a call opened everything meanwhile
    Run *run = g_anchor.depth.load() == 0 ? run_at(t, s->pages[i]) : nullptr;
    if (run && !run->open) mprotect(reinterpret_cast<void *>(s->pages[i]), t->page, PROT_NONE);
  }
  s->n = 0;
  __atomic_store_n(&s->tid, 0L, __ATOMIC_RELEASE);
  static_cast<ucontext_t *>(uctx)->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
  errno = saved;
}

// Ours, in front of whatever the program (or cudaemu) installed since: theirs gets every other fault
inline void install(Table *t) {
  struct sigaction cur {};
  sigaction(SIGSEGV, nullptr, &cur);
  if (!((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv)) {
    t->prev_segv = cur;
    struct sigaction sa {};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;   // (as cudaemu's: a fiber's stack overflow still reaches it)
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
  }
  sigaction(SIGTRAP, nullptr, &cur);
  if (!((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_trap)) {
    t->prev_trap = cur;
    struct sigaction sa {};
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTRAP, &sa, nullptr);
  }
}

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

// A CUDA call begins: every page open, the hits settled
inline void enter() {
  Table *t = g_anchor.t;
  if (g_anchor.depth.fetch_add(1) != 0 || !t) return;   // (no table: nothing was ever closed)
  for (size_t i = 0; i < t->n_runs; ++i)
    if (!t->runs[i].open) mprotect(reinterpret_cast<void *>(t->runs[i].lo), t->runs[i].hi - t->runs[i].lo,
                                   PROT_READ | PROT_WRITE);
  t->n_runs = 0;
  settle(t);
}

// The call returns to the program: the pages of what the host does not know done closed
inline void leave() {
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
