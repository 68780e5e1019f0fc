// hirace's host runtime set up once per process: its options read from the environment (the
// HIRACE_* variables of cudacommon/protocol.h, which `hirace run` sets from hirace.toml), the fork
// handlers, the log written at exit; and a failed CUDA call of hirace's own (check_cuda).
#ifndef HIRACE_HOST_INIT_H
#define HIRACE_HOST_INIT_H

#include "host_fork.h"

namespace hirace {
namespace host {

inline void init() {
  State &s = state();
  if (s.init) return;
  s.init = true;
  s.pid = long(getpid());
  pthread_atfork(fork_prepare, nullptr, fork_child);
  using ::cctk::host::option;
  if (const char *p = option(::cctk::env::kHiraceLog)) s.log_path = p;
  else if (const char *p = option(::cctk::env::kHiraceLogDir)) s.log_dir = p;
  if (const char *p = option(::cctk::env::kHiraceKernels)) s.kernels = std::string(",") + p + ",";
  if (const char *p = option(::cctk::env::kHiraceKernelsExclude)) s.kernels_exclude = std::string(",") + p + ",";
  if (const char *p = option(::cctk::env::kHiraceMaxReports)) s.log_cap = unsigned(std::max(1, std::atoi(p)));
  if (const char *p = option(::cctk::env::kHiracePriorSites)) s.prior_sites = *p == '1';
  if (const char *p = option(::cctk::env::kHiraceSitesBudget)) s.sites_budget = unsigned(std::max(0, std::atoi(p)));
  if (const char *p = option(::cctk::env::kHiraceQuietVersions)) s.quiet_versions = *p != '0';
  if (const char *p = option(::cctk::env::kHiraceBounds)) s.bounds = *p != '0';
  if (const char *p = option(::cctk::env::kHiraceBlocks)) std::sscanf(p, "%u:%u", &s.bid_lo, &s.bid_hi);
  if (const char *p = option(::cctk::env::kHiraceThreads)) std::sscanf(p, "%u:%u", &s.tid_lo, &s.tid_hi);
  // a run the cpu backend stops has no log: the tool reports the fault instead
  ::cctk::host::at_end(write_log, /*on_fault=*/false);
}

// A kernel's fault is sticky: with launches pending (not waited for), the next CUDA call hirace makes
// returns it, and the message says it is the kernel's.
inline bool kernel_fault(cudaError_t e) {
  return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorLaunchTimeout ||
         e == cudaErrorAssert || e == cudaErrorIllegalInstruction || e == cudaErrorMisalignedAddress;
}
inline void check_cuda(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return;
  if (!state().pending.empty() && kernel_fault(e)) what = "kernel (under hirace)";
  ::cctk::host::fail("hirace", what, e);
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_INIT_H
