// Programs built unit by unit through the compiler launcher (hirace-cc): each instrumented
// translation unit carries its own site table, registers it when the program starts and is given
// the first id of its range (its checks pass hirace_unit_site(local id)). At exit such a program
// writes its log where a tool asked (HIRACE_LOG, or a file of its own in HIRACE_LOG_DIR), or, when
// nobody asked, reports what it found on stderr by itself, as a sanitized binary does, and then
// ends with HIRACE_EXITCODE (default 66) when it found something. Included by host.h.
#ifndef HIRACE_UNITS_H
#define HIRACE_UNITS_H

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>
#include <sys/stat.h>
#include <unistd.h>

#include "cudacommon/host_runtime.h"

namespace hirace {
namespace host {

// One instrumented access, as the planner's site table has it (hirace/sites.py Site).
struct SiteInfo {
  unsigned line, column;
  const char *file, *kind, *text, *function, *variable, *space, *bound;
};

struct Unit {
  const SiteInfo *sites;
  unsigned count, base;
  void (*set_device_base)();   // copies the base to the unit's device code (nullptr once done)
};

struct Units {
  std::vector<Unit> list;
  unsigned next = 0;           // the first id of the next unit
  bool device_pending = false;
  int device = -1;             // the device whose context holds the units' bases
  int shift = -1;              // the shadow granularity every unit was built with (HIRACE_GRANULARITY_SHIFT)
};

// (never destroyed: the log is written by an exit handler registered before the first unit came)
inline Units &units() {
  static Units *u = new Units;
  return *u;
}

// A unit's site table at program start: returns its first site id.
inline unsigned register_unit(const SiteInfo *sites, unsigned count, void (*set_device_base)(), int shift) {
  Units &u = units();
  if (u.shift >= 0 && u.shift != shift) {
    std::fprintf(stderr, "hirace: the program's units were built with different shadow granularities (%u and %u "
                 "bytes): build them all with one hirace.toml (granularity), or none\n", 1u << u.shift, 1u << shift);
    std::fflush(stderr);
    std::_Exit(::cctk::exit_code::kExitRuntimeFailure);
  }
  u.shift = shift;
  if (u.next + count > (1u << kSiteIdBits) || u.next + count < u.next) {
    std::fprintf(stderr, "hirace: the program has more than %u instrumented accesses (hirace numbers them in %u "
                 "bits): build fewer of its files through hirace-cc\n", 1u << kSiteIdBits, kSiteIdBits);
    std::fflush(stderr);
    std::_Exit(::cctk::exit_code::kExitRuntimeFailure);
  }
  unsigned base = u.next;
  u.next += count;
  u.list.push_back(Unit{sites, count, base, set_device_base});
  u.device_pending = u.device_pending || set_device_base != nullptr;
  return base;
}

// Before a launch on `device`: the units' device code gets their bases, once per context (again after
// a reset, on another device, and for units registered since).
inline void set_unit_bases(int device) {
  Units &u = units();
  if (!u.device_pending && device == u.device) return;
  u.device_pending = false;
  u.device = device;
  for (Unit &x : u.list)
    if (x.set_device_base) x.set_device_base();
}
inline void forget_unit_bases() { units().device_pending = true; }

inline const SiteInfo *unit_site_info(unsigned id) {
  for (const Unit &x : units().list)
    if (id >= x.base && id - x.base < x.count) return &x.sites[id - x.base];
  return nullptr;
}

// The log's name in HIRACE_LOG_DIR: hirace-PID-N.jsonl, never over another process's log.
inline std::string log_in_dir(const char *dir) { return ::cctk::host::log_in_dir(dir, "hirace"); }
using ::cctk::host::own_command;

inline void write_unit_records(std::FILE *f) {
  namespace rec = ::cctk::hirace_log;
  for (const Unit &x : units().list)
    for (unsigned i = 0; i < x.count; ++i) {
      const SiteInfo &si = x.sites[i];
      rec::write_site(f, x.base + i, si.file, si.line, si.column, si.kind, si.text, si.function, si.variable,
                      si.space, si.bound);
    }
#if defined(CUDAEMU)
  rec::write_process(f, unsigned(getpid()), own_command().c_str(), "cpu");
#else
  rec::write_process(f, unsigned(getpid()), own_command().c_str(), "gpu");
#endif
}

inline void print_site(const char *role, unsigned id, const char *access) {
  const SiteInfo *si = unit_site_info(id);
  if (si)
    std::fprintf(stderr, "  %s %s at %s:%u:%u `%s`", role, access, si->file, si->line, si->column, si->text);
  else
    std::fprintf(stderr, "  %s %s at an unknown site", role, access);
}

inline void print_coords(unsigned linear, const unsigned dims[3]) {
  unsigned x = dims[0] ? dims[0] : 1, y = dims[1] ? dims[1] : 1;
  std::fprintf(stderr, "(%u,%u,%u)", linear % x, (linear / x) % y, linear / (x * y));
}

// The buffer's name from the allocation's pointer argument as written: `(void **)&d_a` -> d_a
// (as hirace/results.py buffer_name).
inline std::string buffer_name(const std::string &written) {
  size_t amp = written.rfind('&');
  std::string s = amp == std::string::npos ? written : written.substr(amp + 1);
  size_t b = s.find_first_not_of(" (");
  size_t e = s.find_last_not_of(" )");
  return b == std::string::npos ? written : s.substr(b, e - b + 1);
}

inline const char *access_name(unsigned access) {
  static const char *names[] = {"read", "write", "block-scope atomic", "device-scope atomic"};
  return access < 4 ? names[access] : "access";
}

// What a program built through hirace-cc found, on stderr, when no tool collects its log; returns
// how many findings it printed. One report per pair of sites (and per out-of-bounds site), counted
// over launches.
template <class Race, class Mem, class Launch, class Buf>
inline unsigned self_report(const std::vector<Race> &races, const std::vector<Mem> &mems,
                            const std::vector<Launch> &launches, const std::vector<Buf> &buffers) {
  std::map<std::pair<unsigned, unsigned>, std::pair<const Race *, unsigned long long>> by_sites;
  for (const Race &x : races) {
    auto key = std::make_pair(x.r.site, x.r.prior_site);
    auto it = by_sites.find(key);
    if (it == by_sites.end()) by_sites[key] = {&x, x.r.count};
    else it->second.second += x.r.count;
  }
  for (const auto &kv : by_sites) {
    const Race &x = *kv.second.first;
    const auto &r = x.r;
    const Launch &l = launches[x.launch];
    const char *space = r.space == 1 ? "shared" : "global";
    std::string what = r.space == 1 || r.buffer >= buffers.size() ? std::string() : " `" + buffer_name(buffers[r.buffer].name) + "`";
    std::fprintf(stderr, "hirace: data race in kernel `%s` (launch %u) on %s memory%s at byte %llu (%llu racing "
                 "access(es)):\n", l.kernel.c_str(), x.launch, space, what.c_str(), (unsigned long long)r.offset,
                 kv.second.second);
    print_site("this", r.site, access_name(r.access));
    std::fprintf(stderr, " by thread ");
    print_coords(r.tid, l.block);
    std::fprintf(stderr, " of block ");
    print_coords(r.bid, l.grid);
    std::fprintf(stderr, "\n");
    bool self = r.tid == r.prior_tid && r.bid == r.prior_bid;
    if (r.prior_site != ~0u && !self) {
      const SiteInfo *p = unit_site_info(r.prior_site);
      print_site("earlier", r.prior_site, p ? p->kind : "access");
      std::fprintf(stderr, " by thread ");
      print_coords(r.prior_tid, l.block);
      std::fprintf(stderr, " of block ");
      print_coords(r.prior_bid, l.grid);
      std::fprintf(stderr, "\n");
    } else if (x.budgeted) {   // (host_site_budget.h)
      std::fprintf(stderr, "  earlier: another thread's access (its site was not recorded: its buffer kept no prior "
                   "sites then, for hirace's memory budget; HIRACE_SITES_BUDGET=0 keeps them)\n");
    } else {
      std::fprintf(stderr, "  earlier: another thread's access (its site was not recorded)\n");
    }
  }
  for (const Mem &x : mems) {
    const auto &r = x.r;
    const Launch &l = launches[x.launch];
    std::fprintf(stderr, "hirace: out-of-bounds %s in kernel `%s` (launch %u), %u access(es):\n",
                 r.access >= 2 ? "atomic" : access_name(r.access), l.kernel.c_str(), x.launch, r.count);
    print_site("this", r.site, "access");
    if (r.buffer < buffers.size())
      std::fprintf(stderr, " of %u bytes at byte %lld of `%s` (%llu bytes)\n", r.size, r.offset,
                   buffer_name(buffers[r.buffer].name).c_str(), (unsigned long long)r.limit);
    else
      std::fprintf(stderr, " of %u bytes, outside its array or every buffer of the program\n", r.size);
  }
  unsigned found = unsigned(by_sites.size() + mems.size());
  if (found)
    std::fprintf(stderr, "hirace: %zu race(s) and %zu out-of-bounds site(s) in %zu checked launch(es); "
                 "`hirace run -- COMMAND` gives the full report\n", by_sites.size(), mems.size(), launches.size());
  std::fflush(stderr);
  return found;
}

// The report on stderr, then, when it found something, the end of the program with HIRACE_EXITCODE
// (default 66, as a sanitizer's; 0: the program's own status stays).
template <class Race, class Mem, class Launch, class Buf>
inline void report_by_itself(const std::vector<Race> &races, const std::vector<Mem> &mems,
                             const std::vector<Launch> &launches, const std::vector<Buf> &buffers) {
  if (!self_report(races, mems, launches, buffers)) return;
  const char *code = ::cctk::host::option(::cctk::env::kHiraceExitcode);
  int status = code ? std::atoi(code) : int(::cctk::exit_code::kExitFindings);
  if (status != 0) {
    std::fflush(nullptr);
    std::_Exit(status);
  }
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_UNITS_H
