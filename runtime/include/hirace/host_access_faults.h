// The fault side of host_access.h's watch (HIRACE_STREAMS=1, HIRACE_HOST_ACCESS_WATCH): the table the handlers
// read (closed runs of pages, the watched spans of live operations, the hits noted, the threads stepping), on
// memory of its own, and the handlers themselves: SIGSEGV notes a host access that met a live operation, opens
// the page and sets the trap flag; SIGTRAP closes it again after the one instruction. They touch only the
// table and the stack, take no lock and allocate nothing. Included by host_access.h only.
#ifndef HIRACE_HOST_ACCESS_FAULTS_H
#define HIRACE_HOST_ACCESS_FAULTS_H

#if HIRACE_STREAMS && HIRACE_HOST_ACCESS_WATCH
namespace hirace {
namespace access {

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

struct Retry {   // a thread whose fault met no closed run: the faulting address, and how often in a row
  long tid;
  uintptr_t addr;
  unsigned tries;
};
constexpr unsigned kRetries = 4;   // faults in a row at one address, with no run, before it is passed on

struct Table {
  Entry *entries = nullptr;
  size_t n_entries = 0, cap_entries = 0;
  Run *runs = nullptr;
  size_t n_runs = 0, cap_runs = 0;
  Hit hits[kHits];
  Stepper steppers[kSteppers];
  Stepper callbacks[kSteppers];
  Retry retries[kSteppers];
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

// This thread's retry slot (claimed where `claim`), or nullptr
inline Retry *retry_slot(Table *t, long tid, bool claim) {
  for (Retry &x : t->retries)
    if (__atomic_load_n(&x.tid, __ATOMIC_ACQUIRE) == tid) return &x;
  for (unsigned i = 0; claim && i < kSteppers; ++i) {
    long none = 0;
    if (__atomic_compare_exchange_n(&t->retries[i].tid, &none, tid, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      t->retries[i].addr = 0;
      t->retries[i].tries = 0;
      return &t->retries[i];
    }
  }
  return nullptr;
}
// A fault on a page no run holds may be one that was closed when the access faulted, that another host
// thread's call opened since (enter marks its runs open) and whose run a later leave dropped as it replaced
// the runs: the instruction is tried again, a few times in a row at one address, after which the fault is the
// program's own and passed on.
inline bool try_again(Table *t, uintptr_t a) {
  const long tid = long(syscall(SYS_gettid));
  Retry *r = retry_slot(t, tid, true);
  if (!r) return false;
  if (r->addr == a && r->tries >= kRetries) {
    __atomic_store_n(&r->tid, 0L, __ATOMIC_RELEASE);
    return false;
  }
  r->tries = r->addr == a ? r->tries + 1 : 1;
  r->addr = a;
  syscall(SYS_sched_yield);   // (the other thread's change of the pages may be under way)
  return true;
}

inline void on_segv(int sig, siginfo_t *info, void *uctx) {
  const int saved = errno;
  Table *t = g_anchor.t;
  const uintptr_t a = uintptr_t(info->si_addr);
  Run *run = t && info->si_code == SEGV_ACCERR ? run_at(t, a) : nullptr;
  if (!run) {
    if (t && info->si_code == SEGV_ACCERR && try_again(t, a)) {
      errno = saved;
      return;
    }
    errno = saved;
    if (t) pass_on(t->prev_segv, sig, info, uctx);
    else signal(sig, SIG_DFL);
    return;
  }
  if (Retry *r = retry_slot(t, long(syscall(SYS_gettid)), false)) __atomic_store_n(&r->tid, 0L, __ATOMIC_RELEASE);
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
  if (__atomic_load_n(&run->open, __ATOMIC_SEQ_CST)) {   // (opened since the access faulted: tried again)
    errno = saved;
    return;
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
    if (!run || __atomic_load_n(&run->open, __ATOMIC_SEQ_CST)) continue;
    mprotect(reinterpret_cast<void *>(s->pages[i]), t->page, PROT_NONE);
    // (a call that began meanwhile opened its runs, maybe before this closed the page: opened again)
    if (g_anchor.depth.load() != 0 || __atomic_load_n(&run->open, __ATOMIC_SEQ_CST))
      mprotect(reinterpret_cast<void *>(s->pages[i]), t->page, PROT_READ | PROT_WRITE);
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

}  // namespace access
}  // namespace hirace
#endif  // HIRACE_STREAMS && HIRACE_HOST_ACCESS_WATCH

#endif  // HIRACE_HOST_ACCESS_FAULTS_H
