// cudaemu: run CUDA programs on the CPU (the cpu backend).
//
// The instrument/ engine lowers what a host compiler cannot parse (launches,
// __shared__ locals, extern __shared__); this header supplies the rest:
// the built-ins, the runtime API subset, and the execution model.
//
// Execution model: every CUDA thread is a fiber. A block's fibers run
// interleaved on one OS thread, switching only at barriers, warp collectives
// and (when a seed asks for it) at instrumented memory accesses; blocks run
// one after another in the order CUDAEMU_BLOCK_ORDER gives. Barrier
// divergence and deadlock stop the program with a report and exit code 86/87.
//
// Environment: CUDAEMU_BLOCK_ORDER=asc|desc|random|<comma list of linear ids>,
// CUDAEMU_SEED=<n> (seeded block order and thread switches), CUDAEMU_SWITCH=<p>
// (switch probability at instrumented accesses, default 0.25 when seeded),
// CUDAEMU_STACK_KB (fiber stack, default 64), CUDAEMU_EXITED_ARRIVE=1 (count
// exited threads as arrived at __syncthreads, as hardware happens to do).
#ifndef CUDAEMU_CUDAEMU_H
#define CUDAEMU_CUDAEMU_H

// what nvcc's cuda_runtime.h brings in implicitly
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
// libstdc++ 13 writes __attribute__((__noinline__)): include what uses it
// before __noinline__ becomes a macro below (their include guards keep it so)
#include <memory>
#include <string>

#define CUDAEMU 1
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __grid_constant__
#define CUDART_CB
#define __align__(n) __attribute__((aligned(n)))
// __shared__ is lowered by the instrument/ engine; one that is left means a
// construct the engine could not lower (for example inside a macro).
#define __shared__ static_assert(false, "cudaemu: a __shared__ declaration was not lowered (is it inside a macro?)");

// ------------------------------------------------------------------ vector types
#define CUDAEMU_VEC(T, N)                                                                   \
  struct N##1 { T x; };                                                                   \
  struct N##2 { T x, y; };                                                                \
  struct N##3 { T x, y, z; };                                                             \
  struct __attribute__((aligned(sizeof(T) * 4 > 16 ? 16 : sizeof(T) * 4))) N##4 { T x, y, z, w; }; \
  inline N##1 make_##N##1(T x) { return N##1{x}; }                                         \
  inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                                 \
  inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }                        \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
CUDAEMU_VEC(signed char, char)
CUDAEMU_VEC(unsigned char, uchar)
CUDAEMU_VEC(short, short)
CUDAEMU_VEC(unsigned short, ushort)
CUDAEMU_VEC(int, int)
CUDAEMU_VEC(unsigned int, uint)
CUDAEMU_VEC(long, long)
CUDAEMU_VEC(unsigned long, ulong)
CUDAEMU_VEC(long long, longlong)
CUDAEMU_VEC(unsigned long long, ulonglong)
CUDAEMU_VEC(float, float)
CUDAEMU_VEC(double, double)
#undef CUDAEMU_VEC

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// ------------------------------------------------------------------ runtime API types
#include "../cudacommon/runtime_types.h"
#include "../cudacommon/protocol.h"
struct CUstream_st { int id; };
struct CUevent_st { std::chrono::steady_clock::time_point t; };

static constexpr int warpSize = 32;

namespace cudaemu {

using namespace ::cctk::exit_code;   // kExitBarrierDivergence, kExitDeadlock, kExitEmulationFault

namespace detail {

// ---------------------------------------------------------------- fiber switch
#if defined(__x86_64__)
extern "C" void cudaemu_switch_ctx(void **save_sp, void *to_sp);
asm(R"(
.text
.weak cudaemu_switch_ctx
.type cudaemu_switch_ctx, @function
cudaemu_switch_ctx:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size cudaemu_switch_ctx, .-cudaemu_switch_ctx
)");
#else
#error "cudaemu: the cpu backend's fiber switch is written for x86-64 only"
#endif

enum FiberState : unsigned char { kRunnable, kAtBarrier, kAtWarp, kAtGather, kDone };

struct Fiber {
  void *sp = nullptr;
  char *stack = nullptr;   // the top of its stack while it has one (from its start to its end)
  uint3 tid{0, 0, 0};
  unsigned linear = 0;
  FiberState state = kRunnable;
  const char *wait_file = "";
  int wait_line = 0;
  unsigned gather = 0;   // coalesced_threads(): the lanes that reached the call together
};

struct SharedSlot { const void *key; void *ptr; };

struct Launch {
  const char *name, *file;
  int line;
  dim3 grid, block;
  size_t shm;
  void (*body)(void *);
  void *env;
};

// One warp collective in progress: lanes of one group (a mask: the whole warp, or a tile of it)
// meet in it. Groups of one warp proceed independently, as tiles of a warp do on a GPU.
struct Warp {
  unsigned index = 0;             // which warp of the block
  unsigned group = 0xffffffffu;   // the lanes named by the collective's mask argument
  unsigned arrived = 0, need = 0, gen = 0;
  const char *file = "";
  int line = 0;
  unsigned long long slots[2][32];
  unsigned part[2] = {0, 0};  // lanes that took part in the collective of each parity
};

// One collective of a tile wider than a warp (64..1024 threads of one block, aligned): its live
// members meet; each stores a value in its slot of the collective's parity.
struct TileMeet {
  unsigned base = 0, size = 0;    // the tile: threads [base, base + size) of the block
  unsigned arrived = 0, gen = 0;
  unsigned need = 0;              // live members when the collective's first member arrived
  std::vector<unsigned long long> slots[2];
  std::vector<char> took[2];      // which members took part in the collective of each parity
};

struct Block {
  uint3 bid{0, 0, 0};
  unsigned nthreads = 0, live = 0, arrived = 0, exited = 0;
  unsigned gen = 0;
  int pred_count = 0, result = 0;
  const char *bar_file = nullptr;
  int bar_line = 0;
  bool bar_mismatch = false;
  unsigned long long progress_mark = 0;   // g_progress when its threads last spun
  unsigned spin_turns = 0;                // spinning turns given to its threads since then
  std::vector<SharedSlot> shared;
  void *dyn = nullptr;
  size_t dyn_bytes = 0;
  size_t arena_used = 0;   // bytes of the shared window handed out
  std::vector<Warp> warps;   // full-warp collectives, one per warp
  std::deque<Warp> groups;   // collectives of other masks (tiles); a deque keeps references stable
  std::deque<TileMeet> tiles;   // collectives of tiles wider than a warp
};

struct Rng {  // splitmix64: small, seedable, reproducible
  unsigned long long s;
  unsigned long long next() {
    unsigned long long z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};

struct Config {
  bool loaded = false, seeded = false, exited_arrive = false;
  unsigned long long seed = 0;
  double switch_p = 0.0;
  size_t stack_bytes = 64 * 1024;
  const char *order = "asc";
};

inline Config g_cfg;
inline Fiber *g_cur = nullptr;
inline Block *g_block = nullptr;
inline Launch *g_launch = nullptr;
inline std::vector<Fiber> g_fibers;   // the running block's threads
// Fiber stacks not in use. A thread gets one when it first runs and gives it back when it ends;
// a thread that ends hands its stack straight to the next thread when that one has not started,
// so the threads of a kernel without barriers run one after another on one stack, with no switch.
inline std::vector<char *> g_free_stacks;
inline void *g_sched_sp = nullptr;
// Blocks interleave when they wait for each other: a thread that keeps spinning (atomics and
// fences with no switch in between) first lets its block's other threads run; when the whole
// block only spins, the block is parked and another block runs (a new one, or a parked one).
// At most kMaxLiveBlocks blocks are started and unfinished at once, each in its own slot
// (its fiber stacks and shared-memory window).
constexpr unsigned kMaxLiveBlocks = 64;
constexpr unsigned long long kSpinLimit = 1ull << 12;
inline unsigned g_slot = 0;                 // the running block's slot
inline unsigned long long g_spin = 0;       // spin evidence in the running thread's turn
inline unsigned long long g_progress = 0;   // barriers and collectives completed, threads finished
inline bool g_parked = false;               // the running block gave way to other blocks
inline Rng g_rng{0};
inline cudaError_t g_last_error = cudaSuccess;
inline unsigned long long g_launch_count = 0;
inline unsigned long long g_switches = 0;  // fiber context switches, for benchmarks
// A block's shared memory is one contiguous window: the static __shared__ variables
// from offset 0 in first-use order, the dynamic shared memory at the window's end,
// right before an inaccessible page, so that an access past its end faults, as it
// does on a GPU (at the granularity of 16 bytes).
constexpr size_t kSharedWindow = 256 * 1024;
inline char *g_arena = nullptr;   // the running block's shared-memory window
inline void (*g_block_start_hook)() = nullptr;  // tools reset per-block state here
inline void (*g_fault_hook)() = nullptr;        // tools save what they measured before a fault exit
inline int g_fault_fd = -1;  // a second place for the fault message (kernels loaded into a Python test,
                             // whose stderr pytest captures and would lose at the exit)

inline const Config &config() {
  if (!g_cfg.loaded) {
    g_cfg.loaded = true;
    if (const char *s = std::getenv(::cctk::env::kCudaemuSeed); s && *s) {
      g_cfg.seeded = true;
      g_cfg.seed = std::strtoull(s, nullptr, 10);
      g_cfg.switch_p = 0.25;
    }
    if (const char *s = std::getenv(::cctk::env::kCudaemuSwitch); s && *s) g_cfg.switch_p = std::atof(s);
    if (const char *s = std::getenv(::cctk::env::kCudaemuStackKb); s && *s)
      g_cfg.stack_bytes = std::max<size_t>(16, std::strtoull(s, nullptr, 10)) * 1024;
    if (const char *s = std::getenv(::cctk::env::kCudaemuBlockOrder); s && *s) g_cfg.order = s;
    if (const char *s = std::getenv(::cctk::env::kCudaemuExitedArrive); s && *s == '1') g_cfg.exited_arrive = true;
    g_rng.s = g_cfg.seed * 0x2545F4914F6CDD1Dull + 1;
  }
  return g_cfg;
}

[[noreturn]] inline void fault(int code, const char *what) {
  if (auto hook = g_fault_hook) {
    g_fault_hook = nullptr;
    hook();
  }
  std::fflush(stdout);
  std::fprintf(stderr, "cudaemu: %s\n", what);
  std::fflush(stderr);
  if (g_fault_fd >= 0) {
    char line[1024];
    int n = std::snprintf(line, sizeof line, "cudaemu: %s\n", what);
    if (n > 0 && write(g_fault_fd, line, size_t(n < int(sizeof line) ? n : int(sizeof line) - 1)) < 0) {
    }
  }
  std::_Exit(code);
}

// One line per run of consecutive threads in the same state at the same site.
inline void describe_waiters(char *buf, size_t n) {
  size_t used = 0;
  auto same = [](const Fiber &a, const Fiber &b) {
    return a.state == b.state && (a.state == kDone ||
                                  (a.wait_line == b.wait_line && std::strcmp(a.wait_file, b.wait_file) == 0));
  };
  for (size_t i = 0; i < g_fibers.size() && used + 200 < n;) {
    size_t j = i;
    while (j + 1 < g_fibers.size() && same(g_fibers[i], g_fibers[j + 1])) ++j;
    const Fiber &f = g_fibers[i], &l = g_fibers[j];
    const char *st = f.state == kAtBarrier ? "wait at __syncthreads" :
                     f.state == kAtWarp ? "wait at a warp collective" :
                     f.state == kAtGather ? "wait in coalesced_threads()" :
                     f.state == kDone ? "exited" : "are runnable";
    int k = std::snprintf(buf + used, n - used, "\n  threads (%u,%u,%u)..(%u,%u,%u) [%zu] %s", f.tid.x, f.tid.y,
                          f.tid.z, l.tid.x, l.tid.y, l.tid.z, j - i + 1, st);
    used += size_t(k);
    if (f.state == kAtBarrier || f.state == kAtWarp || f.state == kAtGather)
      used += size_t(std::snprintf(buf + used, n - used, " at %s:%d", f.wait_file, f.wait_line));
    i = j + 1;
  }
}

[[noreturn]] inline void barrier_fault(int code, const char *kind) {
  char msg[4096];
  int k = std::snprintf(msg, sizeof msg, "%s in kernel '%s' (launched at %s:%d), block (%u,%u,%u):", kind,
                        g_launch->name, g_launch->file, g_launch->line, g_block->bid.x, g_block->bid.y,
                        g_block->bid.z);
  describe_waiters(msg + k, sizeof msg - k);
  fault(code, msg);
}

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
  ++g_switches;
  cudaemu_switch_ctx(save, to);
}

// coalesced_threads() in a divergent branch: the lanes that take the branch reach the call, the others
// do not. A lane that calls it waits until no lane of its warp can still run (every other lane waits
// somewhere or has exited); then the lanes waiting at the same call form the group, as the lanes
// that were active together do on a GPU.
inline unsigned g_gathering = 0;   // threads waiting in coalesced_threads(); none: nothing to scan
inline void release_gathers(unsigned warp) {
  if (g_gathering == 0) return;
  size_t base = size_t(warp) * 32, end = std::min(base + 32, g_fibers.size());
  bool waiting = false;
  for (size_t i = base; i < end; ++i) {
    if (g_fibers[i].state == kRunnable) return;
    waiting |= g_fibers[i].state == kAtGather;
  }
  if (!waiting) return;
  for (size_t i = base; i < end; ++i) {
    Fiber &f = g_fibers[i];
    if (f.state != kAtGather) continue;
    unsigned mask = 0;
    for (size_t j = base; j < end; ++j)
      if (g_fibers[j].state == kAtGather && g_fibers[j].wait_line == f.wait_line &&
          std::strcmp(g_fibers[j].wait_file, f.wait_file) == 0)
        mask |= 1u << (j - base);
    for (size_t j = base; j < end; ++j)
      if (mask & (1u << (j - base))) {
        g_fibers[j].gather = mask;
        g_fibers[j].state = kRunnable;
        --g_gathering;
      }
  }
}

inline unsigned gather_coalesced(const char *file, int line) {
  Fiber *self = g_cur;
  self->state = kAtGather;
  ++g_gathering;
  self->wait_file = file;
  self->wait_line = line;
  self->gather = 0;
  switch_away(false);
  return self->gather;
}

inline void block_release() {
  ++g_progress;
  Block &b = *g_block;
  b.result = b.pred_count;
  b.pred_count = 0;
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
      g_spin = 0;
      continue;
    }
    g_free_stacks.push_back(self->stack);   // left for good by the switch below
    self->stack = nullptr;
    g_cur = next;
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

inline void warp_check_release(Warp &w) {
  if (w.need == 0 || (w.arrived & w.need) != w.need) return;
  ++g_progress;
  w.part[w.gen & 1] = w.arrived;
  w.arrived = 0;
  w.need = 0;
  ++w.gen;
  size_t base = size_t(w.index) * 32;
  for (size_t i = base; i < base + 32 && i < g_fibers.size(); ++i)
    if (g_fibers[i].state == kAtWarp) g_fibers[i].state = kRunnable;
}

inline unsigned lane_live_mask(unsigned warp) {
  unsigned m = 0;
  size_t base = size_t(warp) * 32;
  for (size_t i = 0; i < 32 && base + i < g_fibers.size(); ++i)
    if (g_fibers[base + i].state != kDone) m |= 1u << i;
  return m;
}

// All lanes of `mask` (that exist and have not exited) meet; returns the
// collective's slot array, in which each lane stored `value`; *part (when
// given) receives the lanes that took part.
inline const unsigned long long *warp_meet(unsigned mask, unsigned long long value, const char *file,
                                           int line, unsigned *part = nullptr) {
  Fiber *self = g_cur;
  unsigned lane = self->linear % 32, index = self->linear / 32;
  Warp *wp = &g_block->warps[index];
  if (mask != 0xffffffffu) {   // a tile or another subset: its own collective
    wp = nullptr;
    for (Warp &g : g_block->groups)
      if (g.index == index && g.group == mask) wp = &g;
    if (!wp) {
      g_block->groups.emplace_back();
      wp = &g_block->groups.back();
      wp->index = index;
      wp->group = mask;
    }
  }
  Warp &w = *wp;
  unsigned gen = w.gen;
  const unsigned long long *slots = w.slots[gen & 1];
  w.slots[gen & 1][lane] = value;
  if (w.arrived == 0) {
    w.need = (mask | (1u << lane)) & lane_live_mask(index);
    w.file = file;
    w.line = line;
  }
  w.arrived |= 1u << lane;
  self->wait_file = file;
  self->wait_line = line;
  if ((w.arrived & w.need) == w.need) {
    warp_check_release(w);
  } else {
    while (w.gen == gen) {   // releases wake the whole warp: wait for this collective's
      self->state = kAtWarp;
      switch_away(config().seeded);
    }
  }
  if (part) *part = w.part[gen & 1];
  return slots;
}

inline unsigned tile_live(const TileMeet &t) {
  unsigned n = 0;
  for (size_t i = t.base; i < size_t(t.base) + t.size && i < g_fibers.size(); ++i) n += g_fibers[i].state != kDone;
  return n;
}

inline void tile_check_release(TileMeet &t) {
  if (t.arrived == 0 || t.arrived < t.need) return;
  ++g_progress;
  t.arrived = 0;
  ++t.gen;   // the next collective uses the other parity: the one before the last, long read
  std::fill(t.took[t.gen & 1].begin(), t.took[t.gen & 1].end(), 0);
  for (size_t i = t.base; i < size_t(t.base) + t.size && i < g_fibers.size(); ++i)
    if (g_fibers[i].state == kAtWarp) g_fibers[i].state = kRunnable;
}

// The live threads of the calling thread's tile of `size` threads (a multiple of 32) meet; returns
// the collective's slots (member rank -> value) and, in *took, which members took part.
inline const unsigned long long *tile_meet(unsigned size, unsigned long long value, const char *file, int line,
                                           const char **took = nullptr) {
  Fiber *self = g_cur;
  unsigned base = self->linear / size * size;
  TileMeet *tp = nullptr;
  for (TileMeet &t : g_block->tiles)
    if (t.base == base && t.size == size) tp = &t;
  if (!tp) {
    g_block->tiles.emplace_back();
    tp = &g_block->tiles.back();
    tp->base = base;
    tp->size = size;
    for (int k = 0; k < 2; ++k) {
      tp->slots[k].assign(size, 0);
      tp->took[k].assign(size, 0);
    }
  }
  TileMeet &t = *tp;
  unsigned gen = t.gen, rank = self->linear - base;
  t.slots[gen & 1][rank] = value;
  t.took[gen & 1][rank] = 1;
  if (t.arrived++ == 0) t.need = tile_live(t);   // counted once per collective, not per arrival
  self->wait_file = file;
  self->wait_line = line;
  if (t.arrived >= t.need) {
    tile_check_release(t);
  } else {
    while (t.gen == gen) {   // releases wake the whole tile: wait for this collective's
      self->state = kAtWarp;
      switch_away(config().seeded);
    }
  }
  if (took) *took = t.took[gen & 1].data();
  return t.slots[gen & 1].data();
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

// An access to the page after the shared window (past the dynamic shared memory)
// stops the run with a message, as the GPU reports an out-of-range shared address.
inline void on_segv(int sig, siginfo_t *info, void *) {
  char *a = static_cast<char *>(info->si_addr);
  if (g_arena && a >= g_arena + kSharedWindow && a < g_arena + kSharedWindow + size_t(sysconf(_SC_PAGESIZE))) {
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
      sa.sa_flags = SA_SIGINFO;
      sigaction(SIGSEGV, &sa, nullptr);
    }
  }
  return g_slot_arenas[slot];
}

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
  g_parked = false;
  g_spin = 0;
  switch_away(config().seeded);
}

inline void run_grid(Launch &L) {
  config();
  g_launch = &L;
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
  cudaemu_switch_ctx(&self->sp, g_sched_sp);   // back to run_grid; resumed when the block runs again
}

template <class T> inline unsigned long long to_bits(T v) {
  static_assert(sizeof(T) <= 8, "cudaemu: warp shuffles of types wider than 8 bytes are not supported");
  unsigned long long b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T> inline T from_bits(unsigned long long b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

}  // namespace detail

// ------------------------------------------------------------------ device side
inline const uint3 &thread_idx() { return detail::g_cur->tid; }
inline const uint3 &block_idx() { return detail::g_block->bid; }
inline const dim3 &block_dim() { return detail::g_launch->block; }
inline const dim3 &grid_dim() { return detail::g_launch->grid; }

inline int syncthreads(const char *file, int line, int pred = 1) {
  detail::wait_block_barrier(file, line, pred);
  return detail::g_block->result;
}

inline void syncwarp(const char *file, int line, unsigned mask = 0xffffffffu) {
  detail::warp_meet(mask, 0, file, line);
}
struct SyncwarpAt {  // `__syncwarp()` and `__syncwarp(mask)` with the call site
  const char *file;
  int line;
  void operator()(unsigned mask = 0xffffffffu) const { syncwarp(file, line, mask); }
};

inline unsigned long long switch_count() { return detail::g_switches; }

// True while a kernel's thread runs (false in host code, including host calls of
// __host__ __device__ functions).
inline bool in_kernel() { return detail::g_cur != nullptr; }

// Called by instrumented code at memory accesses: a seeded schedule may
// switch threads here, so racy programs can show their other outcomes.
inline void maybe_yield() {
  const detail::Config &c = detail::config();
  if (c.switch_p > 0 && detail::g_cur && detail::g_rng.uniform() < c.switch_p) detail::switch_away(true);
}

// The form instrumented code uses: `(*::cudaemu::yield_at(&(a[i])))`.
template <class T> inline T *yield_at(T *p) {
  maybe_yield();
  return p;
}

template <class T> T &block_shared(const void *key) {
  using detail::Block;
  auto &slots = detail::g_block->shared;
  for (auto &s : slots)
    if (s.key == key) return *static_cast<T *>(s.ptr);
  Block &b = *detail::g_block;
  size_t bytes = (sizeof(T) + 63) / 64 * 64;
  if (b.arena_used + bytes + b.dyn_bytes > detail::kSharedWindow)
    detail::fault(kExitEmulationFault, "shared memory of one block exceeds the cpu backend's 256 KiB window");
  void *p = detail::g_arena + b.arena_used;
  b.arena_used += bytes;
  std::memset(p, 0, bytes);
  slots.push_back({key, p});
  return *static_cast<T *>(p);
}

// Where p lies in the current block's shared window, like __cvta_generic_to_shared.
inline bool shared_offset(const void *p, size_t *offset) {
  const char *c = static_cast<const char *>(p);
  if (!detail::g_block || c < detail::g_arena || c >= detail::g_arena + detail::kSharedWindow) return false;
  *offset = size_t(c - detail::g_arena);
  return true;
}
inline size_t linear_thread() { return detail::g_cur->linear; }

template <class T> T *dynamic_shared() { return static_cast<T *>(detail::g_block->dyn); }

// ------------------------------------------------------------------ launches
// `k<<<g, b, shm, s>>>(args)` is lowered to `::cudaemu::launcher(..., k)(args)`:
// the call operator takes the kernel's parameter types, so the arguments
// convert exactly as in a CUDA launch (a literal 0 becomes a null pointer).
namespace detail {
inline bool valid_config(dim3 grid, dim3 block, size_t shm) {
  unsigned long long threads = 1ull * block.x * block.y * block.z;
  if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
      grid.y > 65535 || grid.z > 65535) {
    g_last_error = cudaErrorInvalidConfiguration;
    return false;
  }
  if (shm > 227 * 1024) {
    g_last_error = cudaErrorInvalidValue;
    return false;
  }
  return true;
}
inline std::recursive_mutex g_launch_mutex;   // host threads that launch take turns: one grid at a time
template <class F, class Tuple> void run_kernel(Launch L, F f, Tuple args) {
  std::lock_guard<std::recursive_mutex> hold(g_launch_mutex);
  if (!valid_config(L.grid, L.block, L.shm)) return;
  struct Env { F f; Tuple args; } env{f, args};
  L.body = [](void *e) {
    Env &en = *static_cast<Env *>(e);
    std::apply(en.f, en.args);  // copies: each thread gets its own parameters
  };
  L.env = &env;
  run_grid(L);
}
}  // namespace detail

template <class... P> struct Launcher {
  detail::Launch L;
  void (*k)(P...);
  void operator()(P... p) const { detail::run_kernel(L, k, std::tuple<P...>(p...)); }
};
template <class F> struct LauncherDeduced {  // template kernels whose arguments deduce
  detail::Launch L;
  F f;
  template <class... A> void operator()(A... a) const { detail::run_kernel(L, f, std::tuple<A...>(a...)); }
};
template <class... P>
Launcher<P...> launcher(const char *name, const char *file, int line, dim3 grid, dim3 block, size_t shm,
                        cudaStream_t, void (*k)(P...)) {
  return Launcher<P...>{detail::Launch{name, file, line, grid, block, shm, nullptr, nullptr}, k};
}
template <class F, class = std::enable_if_t<!std::is_pointer_v<F> && !std::is_function_v<F>>>
LauncherDeduced<F> launcher(const char *name, const char *file, int line, dim3 grid, dim3 block, size_t shm,
                            cudaStream_t, F f) {
  return LauncherDeduced<F>{detail::Launch{name, file, line, grid, block, shm, nullptr, nullptr}, f};
}

}  // namespace cudaemu

#define threadIdx (::cudaemu::thread_idx())
#define blockIdx (::cudaemu::block_idx())
#define blockDim (::cudaemu::block_dim())
#define gridDim (::cudaemu::grid_dim())
#define __syncthreads() ::cudaemu::syncthreads(__FILE__, __LINE__)
#define __syncthreads_count(p) ::cudaemu::syncthreads(__FILE__, __LINE__, (p))
#define __syncthreads_and(p) (::cudaemu::syncthreads(__FILE__, __LINE__, (p)) == int(::cudaemu::detail::g_block->live))
#define __syncthreads_or(p) (::cudaemu::syncthreads(__FILE__, __LINE__, (p)) != 0)
#define __syncwarp(...) ::cudaemu::SyncwarpAt{__FILE__, __LINE__}(__VA_ARGS__)

#include "cudaemu_device.h"
#include "cudaemu_api.h"

#endif  // CUDAEMU_CUDAEMU_H
