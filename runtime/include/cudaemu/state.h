// cudaemu: the state of a launch (blocks, warps, tiles), the options read from the environment,
// and the fault exit with its report of where each thread waits.
// Included by cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_STATE_H
#define CUDAEMU_STATE_H

// gridDim and blockDim (types.h): the running launch's, set when its grid starts (scheduler.h run_grid)
inline dim3 gridDim, blockDim;

namespace cudaemu {
namespace detail {

struct SharedSlot { const void *key; void *ptr; };

struct Launch {
  const char *name, *file;
  int line;
  dim3 grid, block;
  size_t shm;
  void (*body)(void *);
  void *env;
  cudaStream_t stream = nullptr;   // the stream the launch names (a tool's hook reads it: g_launch_done)
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
  unsigned linear = 0;          // bid.x + grid.x * (bid.y + grid.y * bid.z)
  unsigned nthreads = 0, live = 0, arrived = 0, exited = 0;
  unsigned gen = 0;             // block barriers completed
  unsigned last_arrived = 0;    // the threads the last of them released
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
inline Launch *g_launch = nullptr;   // (its grid and block are also gridDim and blockDim, below)
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
// Turns: steps whenever the running thread changes (g_cur), so that a tool can tell that no other thread
// ran since it last looked (hirace's turn_memo.h); a tool may step it too, to forget what it kept.
inline unsigned long long g_turn = 0;
// A block's shared memory is one contiguous window: the static __shared__ variables
// from offset 0 in first-use order, the dynamic shared memory at the window's end,
// right before an inaccessible page, so that an access past its end faults, as it
// does on a GPU (at the granularity of 16 bytes).
constexpr size_t kSharedWindow = 256 * 1024;
inline char *g_arena = nullptr;   // the running block's shared-memory window
inline std::vector<char *> g_stack_guards;   // the guard page below each fiber stack
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

}  // namespace detail
}  // namespace cudaemu

#endif  // CUDAEMU_STATE_H
