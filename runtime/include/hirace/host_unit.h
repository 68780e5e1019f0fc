// What each translation unit that includes host.h adds: its copy of g_launch registered (so a launch
// reaches kernels defined in any file), a unit built by hirace-cc its first site id and site table
// (units.h), and the runtime started with the program (so that the log is written at exit).
#ifndef HIRACE_HOST_UNIT_H
#define HIRACE_HOST_UNIT_H

#include "host_launch.h"
#include "host_log.h"

namespace hirace {

// Each translation unit that includes this header registers its own copy of
// g_launch, so a launch reaches kernels defined in any file.
namespace {
inline void hirace_set_this_tu(const LaunchState &s, bool without_waiting) {
  if (without_waiting)   // from pinned memory, on the default stream
    host::check_cuda(cudaMemcpyToSymbolAsync(g_launch, &s, sizeof s, 0, cudaMemcpyHostToDevice, 0), "launch state copy");
  else
    host::check_cuda(cudaMemcpyToSymbol(g_launch, &s, sizeof s), "launch state copy");
}
static host::TuRegistrar hirace_tu_registrar(&hirace_set_this_tu);
#if HIRACE_MEMORY_SYNC
// its copy of the launch's record of synchronisation through memory (memory_sync_hooks.h g_memsync)
inline void hirace_set_memsync_this_tu(const void *m) {
  host::check_cuda(cudaMemcpyToSymbol(g_memsync, m, sizeof(memsync::MemorySync)), "memory-sync record copy");
}
static host::MemsyncRegistrar hirace_memsync_registrar(&hirace_set_memsync_this_tu);
#endif
#if HIRACE_UNITS
// a unit built by hirace-cc: its first site id, here and in its device code (units.h)
unsigned hirace_unit_base_h = 0;
#if defined(CUDAEMU)
inline void hirace_set_unit_base() {}
#else
__constant__ unsigned hirace_unit_base_d;
inline void hirace_set_unit_base() {
  host::check_cuda(cudaMemcpyToSymbol(hirace_unit_base_d, &hirace_unit_base_h, sizeof hirace_unit_base_h),
                   "unit site base copy");
}
#endif
// a check's site id: the unit's first id plus the site's own (hirace/planner.py, unit_mode)
CCTK_HD inline unsigned unit_site(unsigned n) {
#if defined(__CUDA_ARCH__)
  return n + hirace_unit_base_d;
#else
  return n + hirace_unit_base_h;
#endif
}
// the unit's site table, registered at the end of its main file
inline unsigned register_this_unit(const host::SiteInfo *sites, unsigned count) {
#if defined(CUDAEMU)
  hirace_unit_base_h = host::register_unit(sites, count, nullptr, HIRACE_GRANULARITY_SHIFT);
#else
  hirace_unit_base_h = host::register_unit(sites, count, &hirace_set_unit_base, HIRACE_GRANULARITY_SHIFT);
#endif
  return hirace_unit_base_h;
}
#endif
// the log is written at exit also when the program launches no kernel (then it lists none)
static const bool hirace_started = (host::init(), host::state().records_ran |= HIRACE_SITES_RAN, true);
}  // namespace

}  // namespace hirace

#endif  // HIRACE_HOST_UNIT_H
