// The coverage log a process writes at exit, through the record writers generated from
// instrument/protocol.py: to $CLTC_COV_LOG, or to a file of the process's own in $CLTC_COV_LOG_DIR
// (log_in_dir: cltc-cov-PID-N.jsonl, never over another file), with the process record of a cltc-cc
// build; `init` reads the options and hooks `finish` to the program's end (a forked child writes
// only what it launched itself).
#ifndef CLTC_COVERAGE_HOST_LOG_H
#define CLTC_COVERAGE_HOST_LOG_H

#include "coverage_host_state.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cltc {
namespace cov {
namespace host {

// The log's name in CLTC_COV_LOG_DIR: cltc-cov-PID-N.jsonl, never over another process's log.
inline std::string log_in_dir(const std::string &dir) { return ::cctk::host::log_in_dir(dir, "cltc-cov"); }
using ::cctk::host::own_command;

inline void write_log() {
  State &s = state();
  std::string path = !s.log_path.empty() ? s.log_path : !s.log_dir.empty() ? log_in_dir(s.log_dir) : std::string();
  ::cctk::host::LogFile log(path);
  if (!log) {
    if (!path.empty())
      std::fprintf(stderr, "cltc coverage: cannot write the coverage log %s: %s\n", path.c_str(), std::strerror(errno));
    return;
  }
  std::FILE *f = log.get();
  namespace rec = ::cctk::coverage_log;   // record writers generated from instrument/protocol.py
  const Totals &t = s.totals;
  for (unsigned i = 0; i < t.flags.size(); ++i)
    if (t.flags[i]) rec::write_flag(f, i);
  for (unsigned i = 0; i < t.counts.size(); ++i)
    if (t.counts[i]) rec::write_count(f, i, t.counts[i]);
  for (unsigned i = 0; i < t.barrier_flags.size(); ++i)
    if (t.barrier_flags[i]) rec::write_barrier_flag(f, i);
  for (unsigned b = 0; b < t.barrier_counts.size(); ++b)
    if (t.barrier_counts[b]) rec::write_barrier_count(f, b, t.barrier_counts[b]);
  for (const Divergence &d : t.divergences) {
    const unsigned block[3] = {d.bx, d.by, d.bz};
    rec::write_divergence(f, d.barrier, block, d.arrived, d.threads);
  }
  bool units = false;
  for (const Tu &tu : s.tus)
    if (tu.table) {
      units = true;
      rec::write_unit(f, tu.flag_base, tu.barrier_base, tu.flags, tu.barriers, tu.counts ? 1u : 0u, tu.table);
    }
  if (units) {
#if defined(CUDAEMU)
    rec::write_process(f, unsigned(getpid()), own_command().c_str(), "cpu");
#else
    rec::write_process(f, unsigned(getpid()), own_command().c_str(), "gpu");
#endif
  }
  rec::write_end(f, s.launches, t.divergence_total);
}

inline void finish() {
  State &s = state();
  if (!s.init) return;
  if (pull()) write_log();   // flags that could not be read are no log, not a log of nothing covered
  s.init = false;
}

// A forked child has its parent's flags, which are the parent's to write (on a GPU the child cannot
// even read them): it writes a log only when it launches kernels itself.
inline void forked_child() { state().init = false; }

inline void init() {
  State &s = state();
  if (s.init) return;
  s.init = true;
  if (const char *p = ::cctk::host::option(::cctk::env::kCltcCovLog)) s.log_path = p;
  if (const char *d = ::cctk::host::option(::cctk::env::kCltcCovLogDir)) s.log_dir = d;
  static bool registered = false;   // a cudaDeviceReset starts another init: one hook is enough
  if (!registered) {
    registered = true;
    ::cctk::host::at_end_reading_device(finish);
    pthread_atfork(nullptr, nullptr, forked_child);
  }
}

}  // namespace host
}  // namespace cov
}  // namespace cltc

#endif  // CLTC_COVERAGE_HOST_LOG_H
