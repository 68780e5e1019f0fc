// cudaemu: which fiber runs next, block barriers, the threads' start and end, fiber stacks and
// shared-memory windows, and the grid loop that runs blocks (parking those that spin).
// Included by cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_SCHEDULER_H
#define CUDAEMU_SCHEDULER_H

namespace cudaemu {
namespace detail {

inline void release_gathers(unsigned warp);
inline void start_fiber(Fiber &f);

// The next runnable fiber after the current one (or a random one), nullptr when none is.
inline Fiber *pick_next(Fiber *self, bool random_pick) {
  if (self) release_gathers(self->linear / 32);
  size_t n = g_fibers.size();
  // the scan starts after the current fiber (from the scheduler: at fiber 0), or at a random one
  size_t i = random_pick ? size_t(g_rng.next() % n) : self ? size_t(self - g_fibers.data()) + 1 : 0;
  Fiber *fibers = g_fibers.data();
  for (size_t k = 0; k < n; ++k, ++i) {
    if (i == n) i = 0;
    if (fibers[i].state == kRunnable) return &fibers[i];
  }
  return nullptr;
}

// Switch to the next runnable fiber; when none is runnable, go back to the scheduler (which
// reports the deadlock).
inline void switch_away(bool random_pick) {
  Fiber *self = g_cur;
  Fiber *next = pick_next(self, random_pick);
  if (next == self) return;
  g_spin = 0;
  if (next && !next->stack) start_fiber(*next);
  void **save = self ? &self->sp : &g_sched_sp;
  void *to = next ? next->sp : g_sched_sp;
  g_cur = next;
  ++g_turn;
  ++g_switches;
  cudaemu_switch_ctx(save, to);
}


inline void block_release() {
  ++g_progress;
  Block &b = *g_block;
  b.result = b.pred_count;
  b.pred_count = 0;
  b.last_arrived = b.arrived;
  b.arrived = 0;
  b.bar_file = nullptr;
  b.bar_mismatch = false;
  ++b.gen;
  for (auto &f : g_fibers)
    if (f.state == kAtBarrier) f.state = kRunnable;
}

inline bool block_barrier_complete() {
  Block &b = *g_block;
  if (b.arrived == 0 || b.arrived != b.live) return false;
  if (b.bar_mismatch) barrier_fault(kExitBarrierDivergence, "barrier divergence (threads wait at different barriers)");
  if (b.exited && !config().exited_arrive)
    barrier_fault(kExitBarrierDivergence, "barrier divergence (some threads exited while others wait at a barrier)");
  return true;
}

inline void warp_check_release(Warp &w);
inline void tile_check_release(TileMeet &t);
inline unsigned tile_live(const TileMeet &t);

// A thread has returned from the kernel: wake what waited for it to end.
inline void finish_thread(Fiber *self) {
  self->state = kDone;
  ++g_progress;
  Block &b = *g_block;
  --b.live;
  ++b.exited;
  // a lane leaving may complete a warp collective its peers wait in
  unsigned bit = 1u << (self->linear % 32);
  Warp &w = b.warps[self->linear / 32];
  w.need &= ~bit;
  warp_check_release(w);
  for (Warp &g : b.groups)
    if (g.index == self->linear / 32) {
      g.need &= ~bit;
      warp_check_release(g);
    }
  for (TileMeet &t : b.tiles)
    if (self->linear - t.base < t.size && t.arrived) {   // one member fewer to wait for
      t.need = tile_live(t);
      tile_check_release(t);
    }
  if (block_barrier_complete()) block_release();
}

// Every fiber starts here, on a fresh stack. When its thread ends and the next thread to run has
// not started yet, that thread runs here too, on the same stack (the order is the same as with a
// switch to it; only the switch is saved).
inline void fiber_main() {
  for (;;) {
    g_launch->body(g_launch->env);
    Fiber *self = g_cur;
    finish_thread(self);
    Fiber *next = pick_next(self, false);
    if (next && !next->stack) {
      next->stack = self->stack;
      self->stack = nullptr;
      g_cur = next;
      ++g_turn;
      g_spin = 0;
      continue;
    }
    g_free_stacks.push_back(self->stack);   // left for good by the switch below
    self->stack = nullptr;
    g_cur = next;
    ++g_turn;
    g_spin = 0;
    ++g_switches;
    cudaemu_switch_ctx(&self->sp, next ? next->sp : g_sched_sp);
    fault(kExitEmulationFault, "internal error: a finished fiber was resumed");
  }
}

inline void wait_block_barrier(const char *file, int line, int pred) {
  Block &b = *g_block;
  Fiber *self = g_cur;
  self->state = kAtBarrier;
  self->wait_file = file;
  self->wait_line = line;
  if (b.bar_file == nullptr) {
    b.bar_file = file;
    b.bar_line = line;
  } else if (b.bar_line != line || (b.bar_file != file && std::strcmp(b.bar_file, file) != 0)) {
    b.bar_mismatch = true;
  }
  ++b.arrived;
  b.pred_count += pred != 0;
  if (block_barrier_complete()) {
    block_release();
    return;
  }
  switch_away(config().seeded);
  if (self->state != kRunnable) fault(kExitEmulationFault, "internal error: fiber resumed while waiting");
}


inline std::vector<unsigned> block_order(unsigned nblocks) {
  std::vector<unsigned> order(nblocks);
  for (unsigned i = 0; i < nblocks; ++i) order[i] = i;
  const char *o = config().order;
  if (std::strcmp(o, "desc") == 0) {
    std::reverse(order.begin(), order.end());
  } else if (std::strcmp(o, "random") == 0) {
    Rng r{config().seed * 31 + g_launch_count};
    for (unsigned i = nblocks; i > 1; --i) std::swap(order[i - 1], order[r.next() % i]);
  } else if (std::strcmp(o, "asc") != 0) {
    // explicit list of linear block ids: those named run first, in that order
    std::vector<unsigned> listed;
    std::vector<char> seen(nblocks, 0);
    const char *p = o;
    while (*p) {
      char *end;
      unsigned long v = std::strtoul(p, &end, 10);
      if (end == p) fault(kExitEmulationFault, "CUDAEMU_BLOCK_ORDER must be asc, desc, random or a comma list of ids");
      if (v < nblocks && !seen[v]) { listed.push_back(unsigned(v)); seen[v] = 1; }
      p = *end == ',' ? end + 1 : end;
    }
    for (unsigned i = 0; i < nblocks; ++i) if (!seen[i]) listed.push_back(i);
    order = listed;
  }
  return order;
}

inline std::vector<char *> g_slot_arenas;                 // shared-memory window of each slot

inline char *new_stack() {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  size_t total = config().stack_bytes + page;
  void *m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) fault(kExitEmulationFault, "out of memory for fiber stacks (lower CUDAEMU_STACK_KB)");
  mprotect(m, page, PROT_NONE);  // guard page: an overflow faults instead of corrupting
  g_stack_guards.push_back(static_cast<char *>(m));
  return static_cast<char *>(m) + total;
}

// Give `f` a stack whose first switch "returns" into fiber_main.
inline void start_fiber(Fiber &f) {
  if (g_free_stacks.empty()) {
    f.stack = new_stack();
  } else {
    f.stack = g_free_stacks.back();
    g_free_stacks.pop_back();
  }
  void **sp = reinterpret_cast<void **>(reinterpret_cast<uintptr_t>(f.stack) & ~uintptr_t(15));
  *--sp = nullptr;                                         // keeps the ABI's 16-byte alignment
  *--sp = reinterpret_cast<void *>(&fiber_main);
  for (int r = 0; r < 6; ++r) *--sp = nullptr;             // rbp rbx r12-r15
  f.sp = sp;
}

using ::cctk::source_line;   // (cudacommon/source_line.h: the fault message's line)

inline const void *fault_pc(void *uctx) {
#if defined(__x86_64__) && defined(REG_RIP)
  return uctx ? reinterpret_cast<const void *>(static_cast<ucontext_t *>(uctx)->uc_mcontext.gregs[REG_RIP]) : nullptr;
#else
  (void)uctx;
  return nullptr;
#endif
}

// A fault in device code stops the run with a message naming the kernel, the thread and the
// source line, instead of a crash: an access past the dynamic shared memory (the GPU reports an
// out-of-range shared address), a thread's stack overflowing into its guard page, or any other
// invalid address (where a GPU might even let the access through, the cpu backend cannot).
inline void on_segv(int sig, siginfo_t *info, void *uctx) {
  char *a = static_cast<char *>(info->si_addr);
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  if (g_cur && g_launch && g_block) {
    char where[600], at[700] = "";
    source_line(fault_pc(uctx), where, sizeof where);
    if (where[0]) std::snprintf(at, sizeof at, " at %s", where);
    bool overflow = false;
    for (char *guard : g_stack_guards) overflow |= a >= guard && a < guard + page;
    if (overflow || !(a >= g_arena + kSharedWindow && a < g_arena + kSharedWindow + page)) {
      char msg[1600];
      if (overflow)
        std::snprintf(msg, sizeof msg,
                      "the stack of thread (%u,%u,%u) in block (%u,%u,%u) of kernel '%s' (launched at %s:%d) "
                      "overflowed%s (deep recursion or large local arrays: raise %s, now %zu KiB)",
                      g_cur->tid.x, g_cur->tid.y, g_cur->tid.z, g_block->bid.x, g_block->bid.y, g_block->bid.z,
                      g_launch->name, g_launch->file, g_launch->line, at, ::cctk::env::kCudaemuStackKb,
                      config().stack_bytes / 1024);
      else
        std::snprintf(msg, sizeof msg,
                      "kernel '%s' (launched at %s:%d) made an invalid memory access to address %p%s, in block "
                      "(%u,%u,%u) thread (%u,%u,%u) (out of bounds of every allocation, or a bad pointer)",
                      g_launch->name, g_launch->file, g_launch->line, static_cast<void *>(a), at, g_block->bid.x,
                      g_block->bid.y, g_block->bid.z, g_cur->tid.x, g_cur->tid.y, g_cur->tid.z);
      fault(kExitEmulationFault, msg);
    }
  }
  if (g_arena && a >= g_arena + kSharedWindow && a < g_arena + kSharedWindow + page) {
    char msg[512];
    std::snprintf(msg, sizeof msg,
                  "kernel '%s' (launched at %s:%d) accessed byte %zu after the end of its %zu bytes of "
                  "dynamic shared memory, in block (%u,%u,%u) thread (%u,%u,%u)",
                  g_launch ? g_launch->name : "?", g_launch ? g_launch->file : "?", g_launch ? g_launch->line : 0,
                  size_t(a - (g_arena + kSharedWindow)) + 1, g_launch ? g_launch->shm : size_t(0),
                  g_block ? g_block->bid.x : 0, g_block ? g_block->bid.y : 0, g_block ? g_block->bid.z : 0,
                  g_cur ? g_cur->tid.x : 0, g_cur ? g_cur->tid.y : 0, g_cur ? g_cur->tid.z : 0);
    fault(kExitEmulationFault, msg);
  }
  signal(sig, SIG_DFL);  // any other fault: the default action when the access repeats
}

// A started block: its state and threads, kept while it is parked.
struct LiveBlock {
  Block b;
  std::vector<Fiber> fibers;
  unsigned slot = 0;
};

inline char *arena_for(unsigned slot) {
  while (g_slot_arenas.size() <= slot) {
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    void *m = mmap(nullptr, kSharedWindow + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) fault(kExitEmulationFault, "out of memory for the shared memory window");
    mprotect(static_cast<char *>(m) + kSharedWindow, page, PROT_NONE);
    g_slot_arenas.push_back(static_cast<char *>(m));
    if (g_slot_arenas.size() == 1) {
      struct sigaction sa {};
      sa.sa_sigaction = on_segv;
      sa.sa_flags = SA_SIGINFO | SA_ONSTACK;   // on the signal stack: a stack overflow is reported too
      sigaction(SIGSEGV, &sa, nullptr);
    }
  }
  return g_slot_arenas[slot];
}

// The fiber stacks and shared-memory windows go back with the program's static data: at exit, or
// when a row host (instrument/compile/row_host.py) unloads the program built as a library, which would
// otherwise leave them mapped in the host for good. Defined after the lists it empties, so it
// is destroyed before them; a launch after it (from an earlier atexit handler) maps new ones.
struct MappingsRelease {
  ~MappingsRelease() {
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    for (char *guard : g_stack_guards) munmap(guard, config().stack_bytes + page);
    for (char *arena : g_slot_arenas) munmap(arena, kSharedWindow + page);
    g_stack_guards.clear();
    g_slot_arenas.clear();
    g_free_stacks.clear();
  }
};
inline MappingsRelease g_mappings_release;

// Make `lb` the running block (its fibers, stacks and shared window become the current ones).
inline void enter(LiveBlock &lb) {
  g_slot = lb.slot;
  g_arena = arena_for(lb.slot);
  g_fibers.swap(lb.fibers);
  g_block = &lb.b;
}
inline void leave(LiveBlock &lb) {
  g_fibers.swap(lb.fibers);
  g_block = nullptr;
}

inline void start_block(Launch &L, uint3 bid, LiveBlock &lb) {
  Block &b = lb.b;
  b.bid = bid;
  b.linear = bid.x + L.grid.x * (bid.y + L.grid.y * bid.z);
  b.nthreads = L.block.x * L.block.y * L.block.z;
  b.live = b.nthreads;
  b.warps.assign((b.nthreads + 31) / 32, Warp{});
  for (size_t i = 0; i < b.warps.size(); ++i) b.warps[i].index = unsigned(i);
  enter(lb);
  size_t dyn_bytes = (L.shm + 15) / 16 * 16;
  if (dyn_bytes > kSharedWindow)
    fault(kExitEmulationFault, "dynamic shared memory of the launch exceeds the cpu backend's 256 KiB window");
  b.dyn = g_arena + kSharedWindow - dyn_bytes;
  b.dyn_bytes = dyn_bytes;
  b.arena_used = 0;
  std::memset(b.dyn, 0, dyn_bytes);
  if (g_block_start_hook) g_block_start_hook();
  g_fibers.assign(b.nthreads, Fiber{});
  unsigned i = 0;
  for (unsigned z = 0; z < L.block.z; ++z)
    for (unsigned y = 0; y < L.block.y; ++y)
      for (unsigned x = 0; x < L.block.x; ++x, ++i) {
        Fiber &f = g_fibers[i];
        f.tid = uint3{x, y, z};
        f.linear = i;   // its stack comes when it first runs (start_fiber)
      }
}

// Runs the running block's threads until every one is done or blocked, or the block parks.
inline void run_turn() {
  g_cur = nullptr;
  ++g_turn;
  g_parked = false;
  g_spin = 0;
  switch_away(config().seeded);
}

// The thread that runs a grid handles its faults on a stack of its own (see on_segv).
inline void ensure_signal_stack() {
  static thread_local bool done = false;
  if (done) return;
  done = true;
  static thread_local char altstack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = altstack;
  ss.ss_size = sizeof altstack;
  sigaltstack(&ss, nullptr);
}

inline void run_grid(Launch &L) {
  config();
  ensure_signal_stack();
  g_launch = &L;
  ::gridDim = L.grid;
  ::blockDim = L.block;
  unsigned nblocks = L.grid.x * L.grid.y * L.grid.z;
  std::vector<unsigned> order = block_order(nblocks);
  std::deque<LiveBlock> parked;
  std::vector<unsigned> free_slots;
  for (unsigned s = kMaxLiveBlocks; s-- > 0;) free_slots.push_back(s);
  size_t next = 0;
  unsigned idle_turns = 0;   // parked blocks resumed in a row without any progress
  while (next < order.size() || !parked.empty()) {
    LiveBlock lb;
    unsigned long long progress_before = g_progress;
    if (next < order.size() && (parked.empty() || !free_slots.empty())) {
      unsigned lin = order[next++];
      lb.slot = free_slots.back();
      free_slots.pop_back();
      start_block(L, uint3{lin % L.grid.x, (lin / L.grid.x) % L.grid.y, lin / (L.grid.x * L.grid.y)}, lb);
    } else {
      lb = std::move(parked.front());
      parked.pop_front();
      enter(lb);
    }
    run_turn();
    if (g_parked) {
      idle_turns = g_progress == progress_before ? idle_turns + 1 : 0;
      if (idle_turns > 2 * (parked.size() + 1) + 2) {
        if (next < order.size())
          barrier_fault(kExitDeadlock, "blocks wait for each other beyond the 64 blocks the cpu backend runs "
                                       "at once (each spins on memory that only a later block would change)");
        barrier_fault(kExitDeadlock, "deadlock across blocks (every started block spins, waiting for memory "
                                     "no block changes)");
      }
      leave(lb);
      parked.push_back(std::move(lb));
      continue;
    }
    idle_turns = 0;
    if (lb.b.live != 0) barrier_fault(kExitDeadlock, "deadlock (every live thread is blocked)");
    free_slots.push_back(lb.slot);
    leave(lb);
  }
  ++g_launch_count;
  g_launch = nullptr;
}

// Called where device code polls memory (atomics, fences, sleeps): a thread that does so many
// times in one turn is taken to be spinning. It lets the block's other threads run; when every
// runnable thread of the block only spins, the block parks so that other blocks run.
inline void spin_point() {
  if (!g_cur || ++g_spin < kSpinLimit) return;
  g_spin = 0;
  Block &b = *g_block;
  if (b.progress_mark != g_progress) {
    b.progress_mark = g_progress;
    b.spin_turns = 0;
  }
  if (++b.spin_turns <= b.live) {
    switch_away(false);
    return;
  }
  b.spin_turns = 0;
  g_parked = true;
  Fiber *self = g_cur;
  g_cur = nullptr;
  ++g_turn;
  cudaemu_switch_ctx(&self->sp, g_sched_sp);   // back to run_grid; resumed when the block runs again
}

}  // namespace detail
}  // namespace cudaemu

#endif  // CUDAEMU_SCHEDULER_H
