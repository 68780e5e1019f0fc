// What a launch's instrumented code reads: the launch state the host copies into each translation
// unit's g_launch before every launch (the ranges, the logs, the thread filter, the shared area, the
// quiet parameters), the note that a site ran, and a thread's linear ids.
#ifndef HIRACE_LAUNCH_STATE_H
#define HIRACE_LAUNCH_STATE_H

#include "records.h"

namespace hirace {

// Everything a launch's instrumented code reads; copied into each translation
// unit's copy of g_launch before every launch.
struct LaunchState {
  unsigned enabled;
  unsigned granularity_shift;  // shadow word covers 1 << shift bytes
  unsigned prior_sites;
  unsigned threads_per_block;
  const Range *ranges;  // sorted by base
  unsigned nranges;
  unsigned long long *shared_shadow;  // per block: shared_slice_words words
  unsigned *shared_sites;
  unsigned long long shared_slice_words;
  unsigned *clocks;  // per thread: block clock, warp clock
  LogEntry<RaceRecord> *log;   // log_mask + 1 entries
  unsigned *log_count;  // records made: shared by the pending launches, as the log is
  unsigned *dropped;    // this launch's
  unsigned log_cap;     // records each log makes at most
  unsigned log_mask;    // entries in each log, less one (a power of two, at least 2 * log_cap)
  unsigned *wrapped;  // this launch's: set when a barrier clock wraps (see update.h inputs)
  unsigned *noted;    // host-mapped: set with anything above, so that launches without any are not read back
  unsigned bid_lo, bid_hi, tid_lo, tid_hi;  // only threads in these ranges are checked
  LogEntry<MemRecord> *mem_log;
  unsigned *mem_count;    // records made: shared by the pending launches
  unsigned *mem_dropped;  // this launch's
  unsigned slot;          // this launch's pending slot: its records name it
  unsigned long long dynamic_shared;  // the launch's dynamic shared memory, bytes
  void *sink_read, *sink_write;       // kSinkBytes each
  unsigned bounds;                    // 0: out-of-bounds accesses are neither reported nor diverted
  unsigned block_base;                // this launch's first block in the shadow's block numbering (see ThreadCtx)
  unsigned site_base;                 // this launch's first block in the site slots' numbering (kSiteTidBits)
  // 1: each block keeps its clocks and its shared-memory shadow in dynamic shared memory after the
  // program's own, `area_offset` bytes from its start (see block_entry); 0: in global memory, per thread
  // (clocks) and per block (shared_shadow)
  unsigned smem;
  unsigned smem_sites;                // smem mode: the shared window's site slots follow the shadow in the area
  unsigned long long area_offset;
  unsigned long long shared_floor;    // bytes of the shared window below the program's variables
  // bit i: the kernel's i-th quiet candidate points into a buffer, [quiet_lo[i], quiet_hi[i]), that
  // no parameter it writes through (a read-only parameter) or no other parameter at all (an own
  // parameter) points into in this launch: its accesses there cannot race
  unsigned quiet_params;
  // bit i: ... quiet as one of a pair passed one pointer (host_quiet.h): its reads are quiet only where
  // the own partner's index is own in the launch (quiet.h rd_paired)
  unsigned quiet_paired;
  unsigned long long quiet_lo[kQuietParams], quiet_hi[kQuietParams];
  unsigned char *ran;   // per site: 1 once its check ran in some launch (the run's report counts them)
  // block numberings reserved for the launch, one per grid sync and one more (1: no grid sync; a
  // cooperative launch: as many as the shadow's and the slots' numbering hold, see after_grid_barrier)
  unsigned grid_epochs;
  // A program that uses streams (HIRACE_STREAMS, gpu backend: stream_footprint.h): per buffer (the range
  // table's id), the words the launch read, wrote and touched by atomics (three bit arrays, null: none
  // kept) and a flag set once the launch touched it; null elsewhere
  unsigned long long *const *footprints;
  unsigned *footprint_touched;
};

static CCTK_CONSTANT LaunchState g_launch;

// A site's id, as its check passes it, noting that the site ran (hirace/planner.py _sid), in a build
// that records it (HIRACE_SITES_RAN: always on the cpu backend; on the gpu backend a flag per access
// costs up to half the check's time again, so only when asked): what a report says of the sites
// that never ran on the run's input comes from these flags. (Each unit its own: units may differ.)
namespace {
CCTK_HD inline unsigned ran(unsigned site) {
#if HIRACE_SITES_RAN && (defined(__CUDA_ARCH__) || defined(CUDAEMU))
#if defined(CUDAEMU)
  if (::cudaemu::detail::g_cur == nullptr) return site;   // (a __host__ __device__ function the host calls)
#endif
  unsigned char *r = g_launch.ran;
  if (r && !r[site]) r[site] = 1;
#endif
  return site;
}
}  // namespace

#if defined(CUDAEMU)   // (the cpu backend keeps both: one load each, at every check)
CCTK_D inline unsigned linear_tid() { return unsigned(::cudaemu::linear_thread()); }
CCTK_D inline unsigned linear_bid() { return ::cudaemu::linear_block(); }
#else
CCTK_D inline unsigned linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
CCTK_D inline unsigned linear_bid() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
#endif

}  // namespace hirace

#endif  // HIRACE_LAUNCH_STATE_H
