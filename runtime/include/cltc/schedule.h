// cltc block-schedule control. On the GPU every block takes a ticket at kernel
// entry (tickets follow the real dispatch order: a block holding ticket k knows
// that blocks with tickets 0..k-1 have started) and runs as logical block
// schedule[ticket]; `blockIdx` in kernels and the device functions they call
// reads the logical id. A block only ever waits for blocks with smaller
// tickets, which are already running, so a schedule cannot deadlock a kernel.
// On the cpu backend the emulator orders blocks itself (CUDAEMU_BLOCK_ORDER);
// this header then only records the launches.
//
// $CLTC_SCHEDULE: "free" | "first:W" | "asc" | "desc" | "random:SEED" | "none" (the forms, the
// gate's modes and the one parser of a spec: cudacommon/protocol.h `schedule`, generated from
// instrument/protocol.py, whose parse_schedule the Python side reads a spec with).
// At exit the launches are written to $CLTC_SCHED_LOG, or with the process's record to a file of
// its own in $CLTC_SCHED_LOG_DIR (cltc-sched-PID-N.jsonl: a program built by cltc-cc for
// amplification, unit by unit, run by `cltc amplify -- COMMAND`; each unit has its own gate and
// registers it, the host state below is shared).
#ifndef CLTC_SCHEDULE_H
#define CLTC_SCHEDULE_H

#include "cudacommon/host_runtime.h"

#include <cstdio>

#include "cltc/linkage.h"
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <pthread.h>

#if defined(__CUDACC__) && !defined(CUDAEMU)
#define CLTC_SCHED_GPU 1
#endif

namespace cltc {
namespace sched {

using ::cctk::schedule::Mode;
using ::cctk::schedule::kNone;
using ::cctk::schedule::kFree;
using ::cctk::schedule::kFirst;
using ::cctk::schedule::kSerial;
using ::cctk::schedule::kSerialDesc;
using ::cctk::schedule::kSerialRandom;

struct LaunchGate {
  unsigned mode;
  unsigned *tickets;         // [0]: next ticket, [1]: blocks finished
  unsigned *exits;           // [ticket]: threads of that block that have finished
  const unsigned *schedule;  // ticket -> logical linear block id
};

#if defined(CLTC_SCHED_GPU)
CLTC_TU_LOCAL __device__ LaunchGate g_gate;

__device__ inline uint3 &logical_slot() {
  __shared__ uint3 id;
  return id;
}
__device__ inline unsigned &ticket_slot() {
  __shared__ unsigned t;
  return t;
}

// `blockIdx.x` -> `::cltc::sched::block_idx().x`
__device__ inline uint3 block_idx() {
  return g_gate.mode == kNone ? blockIdx : logical_slot();
}

// At the top of every kernel: take a ticket, become schedule[ticket], wait for
// the blocks this schedule puts first; at exit, the block's last thread says it finished.
struct Gate {
  __device__ Gate() {
    LaunchGate g = g_gate;
    if (g.mode == kNone) return;
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    if (tid == 0) {
      unsigned t = atomicAdd(&g.tickets[0], 1u);
      unsigned lin = g.schedule[t];
      ticket_slot() = t;
      logical_slot() = make_uint3(lin % gridDim.x, (lin / gridDim.x) % gridDim.y, lin / (gridDim.x * gridDim.y));
      unsigned need = g.mode == kSerial ? t : (g.mode == kFirst && t > 0 ? 1u : 0u);
      volatile unsigned *done = &g.tickets[1];
      while (*done < need) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(200);
#endif
      }
      __threadfence();
    }
    __syncthreads();
  }
  __device__ ~Gate() {
    LaunchGate g = g_gate;
    if (g.mode == kNone || g.mode == kFree) return;
    __threadfence();
    unsigned n = blockDim.x * blockDim.y * blockDim.z;
    if (atomicAdd(&g.exits[ticket_slot()], 1u) + 1 == n) {
      __threadfence();
      atomicAdd(&g.tickets[1], 1u);
    }
  }
};
#endif

namespace host {

struct State {
  bool init = false;
  unsigned mode = kNone, first = 0;
  unsigned long long seed = 0;
  std::string log_path, log_dir;
  std::vector<unsigned> blocks;  // per launch
  std::vector<void (*)(const LaunchGate &)> tus;
  unsigned *d_tickets = nullptr, *d_exits = nullptr, *d_schedule = nullptr;
  size_t cap = 0;
};

inline State &state() {
  static State s;
  return s;
}

inline void write_log() {
  State &s = state();
  if (!s.init) return;
  s.init = false;   // (written once; a forked child that launches nothing writes none)
  bool own = s.log_path.empty() && !s.log_dir.empty();
  ::cctk::host::LogFile log(own ? ::cctk::host::log_in_dir(s.log_dir, "cltc-sched") : s.log_path);
  if (!log) return;
  namespace rec = ::cctk::schedule_log;   // record writers generated from instrument/protocol.py
  for (unsigned n : s.blocks) rec::write_launch(log.get(), n);
  if (own) {
#if defined(CUDAEMU)
    rec::write_process(log.get(), unsigned(getpid()), ::cctk::host::own_command().c_str(), "cpu");
#else
    rec::write_process(log.get(), unsigned(getpid()), ::cctk::host::own_command().c_str(), "gpu");
#endif
  }
  rec::write_end(log.get());
}

// A forked child's launches so far are its parent's: it writes a log only when it launches itself.
inline void forked_child() {
  state().init = false;
  state().blocks.clear();
}

inline void init() {
  State &s = state();
  if (s.init) return;
  s.init = true;
  if (const char *p = ::cctk::host::option(::cctk::env::kCltcSchedLog)) s.log_path = p;
  if (const char *d = ::cctk::host::option(::cctk::env::kCltcSchedLogDir)) s.log_dir = d;
  const ::cctk::schedule::Spec spec = ::cctk::schedule::parse(::cctk::host::option(::cctk::env::kCltcSchedule));
  s.mode = spec.mode;
  s.first = spec.first;
  s.seed = spec.seed;
  static bool registered = false;
  if (!registered) {
    registered = true;
    ::cctk::host::at_end(write_log);
    pthread_atfork(nullptr, nullptr, forked_child);
  }
}

// ticket -> logical block for one launch of n blocks
inline std::vector<unsigned> make_schedule(const State &s, unsigned n, unsigned launch) {
  std::vector<unsigned> order(n);
  for (unsigned i = 0; i < n; ++i) order[i] = i;
  if (s.mode == kFirst && n) {
    unsigned w = s.first % n;
    for (unsigned i = w; i > 0; --i) order[i] = order[i - 1];
    order[0] = w;
  } else if (s.mode == kSerial && s.first == kSerialDesc) {
    for (unsigned i = 0; i < n; ++i) order[i] = n - 1 - i;
  } else if (s.mode == kSerial && s.first == kSerialRandom) {
    unsigned long long x = s.seed * 0x9E3779B97F4A7C15ull + launch + 1;
    for (unsigned i = n; i > 1; --i) {
      x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
      unsigned j = unsigned((x * 0x2545F4914F6CDD1Dull) >> 33) % i;
      unsigned t = order[i - 1]; order[i - 1] = order[j]; order[j] = t;
    }
  }
  return order;
}

inline void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) ::cctk::host::fail("cltc amplify", what, e);
}

// Wraps every launch: records it, and on the GPU prepares its gate.
inline void before_launch(dim3 grid) {
  init();
  State &s = state();
  unsigned n = grid.x * grid.y * grid.z;
  unsigned launch = unsigned(s.blocks.size());
  s.blocks.push_back(n);
#if defined(CLTC_SCHED_GPU)
  LaunchGate g{s.mode, nullptr, nullptr, nullptr};
  if (s.mode != kNone) {
    if (n > s.cap) {
      cudaDeviceSynchronize();
      if (s.d_tickets) { cudaFree(s.d_exits); cudaFree(s.d_schedule); } else
        check(cudaMalloc(reinterpret_cast<void **>(&s.d_tickets), 2 * sizeof(unsigned)), "gate allocation");
      check(cudaMalloc(reinterpret_cast<void **>(&s.d_exits), n * sizeof(unsigned)), "gate allocation");
      check(cudaMalloc(reinterpret_cast<void **>(&s.d_schedule), n * sizeof(unsigned)), "gate allocation");
      s.cap = n;
    }
    std::vector<unsigned> order = make_schedule(s, n, launch);
    check(cudaMemcpy(s.d_schedule, order.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice), "schedule copy");
    check(cudaMemset(s.d_tickets, 0, 2 * sizeof(unsigned)), "gate reset");
    check(cudaMemset(s.d_exits, 0, n * sizeof(unsigned)), "gate reset");
    g = LaunchGate{s.mode, s.d_tickets, s.d_exits, s.d_schedule};
  }
  for (auto set : s.tus) set(g);
#endif
}

struct TuRegistrar {
  explicit TuRegistrar(void (*set)(const LaunchGate &)) { state().tus.push_back(set); }
};

}  // namespace host

#if defined(CLTC_SCHED_GPU)
namespace {
inline void cltc_sched_set_gate(const LaunchGate &g) {
  host::check(cudaMemcpyToSymbol(g_gate, &g, sizeof g), "gate setup");
}
static host::TuRegistrar cltc_sched_registrar(&cltc_sched_set_gate);
}  // namespace
#endif

}  // namespace sched
}  // namespace cltc

#endif  // CLTC_SCHEDULE_H
