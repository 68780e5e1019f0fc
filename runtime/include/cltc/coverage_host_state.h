// cltc coverage's host side, its state: the totals by the program's ids (Totals), each translation
// unit's entry (Tu: how to read its flags, its sizes and first ids, its item table in a cltc-cc
// build), the cpu backend's per-block barrier arrivals, the registration that gives a unit its first
// ids (register_tu, TuRegistrar), and `pull`, every unit's flags ORed into the totals.
#ifndef CLTC_COVERAGE_HOST_STATE_H
#define CLTC_COVERAGE_HOST_STATE_H

#include "coverage_state.h"

#include <string>
#include <vector>

namespace cltc {
namespace cov {
namespace host {

// What the program's translation units measured, by the program's ids: a unit's own id plus its
// first (0 in a program built whole, whose units share one numbering). Nothing here depends on a
// unit's own macros: every unit shares this code, whatever it was built with.
struct Totals {
  std::vector<unsigned char> flags;
  std::vector<unsigned long long> counts;            // counting builds (CLTC_COV_COUNTS=1); else zeros
  std::vector<unsigned char> barrier_flags;          // 2 per barrier: reached, reached by a whole block
  std::vector<unsigned long long> barrier_counts;
  std::vector<Divergence> divergences;               // barriers by the program's ids
  unsigned divergence_total = 0;
};

struct Tu {
  bool (*pull)(const struct Tu &, Totals &);         // the unit's device flags, ORed into the totals
  void (*set_barriers)(const BarrierState &);
  unsigned flags, barriers;                          // how many the unit has
  unsigned flag_base, barrier_base;                  // its first ids among the program's
  const char *table;                                 // a unit built by cltc-cc: its items (JSON); else nullptr
  int arrivals;                                      // its per-block barrier counters (State::arrivals), -1: none
  bool counts;                                       // built to count executions (CLTC_COV_COUNTS=1)
};

// cpu backend: the per-block barrier arrivals of the units that share one numbering of barriers
// (a program built whole: all of them; built unit by unit: each unit its own).
struct Arrivals {
  unsigned barrier_base, barriers;
  BarrierState st;
  size_t cap;
};

struct State {
  bool init = false;
  std::string log_path, log_dir;
  std::vector<Tu> tus;
  std::vector<Arrivals> arrivals;
  Totals totals;
  unsigned launches = 0;
  unsigned next_flag = 0, next_barrier = 0;          // the first ids of the next unit (built by cltc-cc)
};

inline State &state() {
  static State s;
  return s;
}

inline void fail(cudaError_t e, const char *what) { ::cctk::host::fail("cltc coverage", what, e); }

// A translation unit at program start. A unit of a program built whole numbers its items as the
// whole program does (from 0); a unit built by cltc-cc is given its first ids. Returns its first flag.
inline unsigned register_tu(Tu tu, bool unit) {
  State &s = state();
  tu.flag_base = unit ? s.next_flag : 0;
  tu.barrier_base = unit ? s.next_barrier : 0;
  if (unit) {
    s.next_flag += tu.flags;
    s.next_barrier += tu.barriers;
  }
  Totals &t = s.totals;
  size_t nf = size_t(tu.flag_base) + tu.flags, nb = size_t(tu.barrier_base) + tu.barriers;
  if (t.flags.size() < nf) {
    t.flags.resize(nf, 0);
    t.counts.resize(nf, 0);
  }
  if (t.barrier_counts.size() < nb) {
    t.barrier_flags.resize(2 * nb, 0);
    t.barrier_counts.resize(nb, 0);
  }
  tu.arrivals = -1;
  if (tu.barriers) {
    for (size_t i = 0; i < s.arrivals.size() && tu.arrivals < 0; ++i)
      if (s.arrivals[i].barrier_base == tu.barrier_base) tu.arrivals = int(i);
    if (tu.arrivals < 0) {
      tu.arrivals = int(s.arrivals.size());
      s.arrivals.push_back(Arrivals{tu.barrier_base, tu.barriers, BarrierState{nullptr, nullptr}, 0});
    }
  }
  s.tus.push_back(tu);
  return tu.flag_base;
}

// Device -> host: OR each translation unit's flags into the totals (and add its counts); false when
// some could not be read (a kernel's fault, say: the message names the CUDA error).
inline bool pull() {
  State &s = state();
  bool ok = true;
  for (const Tu &tu : s.tus) ok &= tu.pull(tu, s.totals);
  return ok;
}

struct TuRegistrar {
  explicit TuRegistrar(Tu tu) { register_tu(tu, false); }
};

}  // namespace host
}  // namespace cov
}  // namespace cltc

#endif  // CLTC_COVERAGE_HOST_STATE_H
