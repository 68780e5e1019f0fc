// The log written at exit ($HIRACE_LOG, or a file of the process's own in $HIRACE_LOG_DIR; a forked
// child's beside its parent's), through the record writers generated from instrument/protocol.py; a
// program built through hirace-cc that no tool runs reports on stderr by itself instead (units.h).
#ifndef HIRACE_HOST_LOG_H
#define HIRACE_HOST_LOG_H

#include "host_readback.h"

namespace hirace {
namespace host {
// The races between operations the host does not order, written by the units that follow the host's
// order (host_stream_hooks.h sets it): a pointer every unit shares, so that the log is the same
// whichever unit's copy of this writer the linker keeps.
inline void (*g_stream_log)(std::FILE *f) = nullptr;

// The sites that ran as ranges of ids ("0-5,7,9-12"), for the log's sites record.
inline std::string ran_ranges(const std::vector<unsigned char> &seen) {
  std::string out;
  for (size_t i = 0; i < seen.size();) {
    if (!seen[i]) { ++i; continue; }
    size_t j = i;
    while (j + 1 < seen.size() && seen[j + 1]) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(i);
    if (j > i) out += '-' + std::to_string(j);
    i = j + 1;
  }
  return out;
}

inline void write_log() {
  State &s = state();
  if (s.log_path.empty() && s.log_dir.empty() && !units().list.empty()) {
    // a program built through hirace-cc that no tool runs: it reports by itself
    // (a forked child reports what it found itself: its parent reports the rest)
    report_by_itself(std::vector<LoggedRace>(s.races.begin() + s.parents_races, s.races.end()),
                     std::vector<LoggedMem>(s.mem_errors.begin() + s.parents_mems, s.mem_errors.end()),
                     s.launches, s.buffers);
    return;
  }
  // (the name in HIRACE_LOG_DIR is chosen now: a forked child writes a log of its own, there or in
  // HIRACE_LOG's directory; the tool reads them all)
  std::string path = s.log_path;
  if (path.empty() && !s.log_dir.empty()) path = log_in_dir(s.log_dir.c_str());
  else if (long(getpid()) != s.pid) {
    size_t slash = path.rfind('/');
    path = log_in_dir(slash == std::string::npos ? "." : path.substr(0, slash).c_str());
  }
  ::cctk::host::LogFile log(path);
  if (!log) return;
  std::FILE *f = log.get();
  namespace rec = ::cctk::hirace_log;   // record writers generated from instrument/protocol.py
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const Buffer &b = s.buffers[i];
    rec::write_buffer(f, i, b.name.c_str(), b.size, b.file.c_str(), b.line, 1u << b.shift, b.checked ? 1u : 0u,
                      b.budgeted ? 1u : 0u);
  }
  for (size_t i = s.parents_launches; i < s.launches.size(); ++i) {
    const LaunchInfo &l = s.launches[i];
    rec::write_launch(f, i, l.kernel.c_str(), l.grid, l.block, l.dropped, l.wrapped, l.mem_dropped, l.quiet,
                      l.failed, l.quiet_params);
  }
  for (size_t i = s.parents_races; i < s.races.size(); ++i) {
    const LoggedRace &x = s.races[i];
    const RaceRecord &r = x.r;
    rec::write_race(f, x.launch, r.site, r.prior_site == ~0u ? -1 : int(r.prior_site), r.tid, r.bid, r.prior_tid,
                    r.prior_bid, r.prior_state, r.access, r.space, r.buffer, r.offset, r.count, x.budgeted ? 1u : 0u);
  }
  for (size_t i = s.parents_mems; i < s.mem_errors.size(); ++i) {
    const LoggedMem &x = s.mem_errors[i];
    const MemRecord &r = x.r;
    rec::write_memory_error(f, x.launch, r.site, r.tid, r.bid, r.access, r.space,
                            r.buffer == kNoBuffer ? -1 : int(r.buffer), r.offset, r.limit, r.size, r.count);
  }
  if (g_stream_log) g_stream_log(f);
  fold_ran(s);
  if (s.records_ran) {   // (a build that does not note them says nothing of which sites ran)
    std::vector<unsigned char> seen = s.ran_seen;
    seen.resize(std::max<size_t>({seen.size(), size_t(HIRACE_SITE_COUNT), size_t(units().next)}), 0);
    rec::write_sites(f, unsigned(seen.size()), ran_ranges(seen).c_str());
  }
  if (!units().list.empty()) write_unit_records(f);
  rec::write_end(f, 1u << kShift, s.user_bytes_peak, s.tool_bytes_peak, s.sites_evicted);
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_LOG_H
