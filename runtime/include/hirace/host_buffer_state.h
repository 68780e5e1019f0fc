// The check's state per buffer (its shadow and prior-site slots), kept only where a launch may need it
// (HIRACE_LAZY_STATE: set by hirace/planner.py for a whole program whose host order of operations is not
// followed). A buffer gets no state when it is allocated, only before the first launch that may write it.
//
// Why that is enough: a race is two accesses of one word in one launch, one of them a write (between
// launches, every record reads as INIT: update.h ThreadCtx::base). A launch that writes no word of a
// buffer has no race there, whatever it reads, so the check of its accesses there can be left out. Which
// buffers a launch may write is the planner's (hirace/proofs/readonly_params.py `writes`): for a kernel
// that writes nowhere but through some of its pointer parameters, a launch passes those arguments
// (`quiet_params`, just before before_launch; the bounds check keeps each write inside the buffer its
// argument points into, or reports it out of bounds and diverts it). Every other launch (a kernel that
// writes through a pointer it loads, a __device__ variable, a device function or constructor, placement
// new, a written parameter it moves (`p += off` may carry p into another buffer, and the bounds are
// taken from where p points then); a graph's node on the gpu backend (on the cpu backend its kernel's entry
// prepares it from the node's arguments: host_graphs.h), cudaLaunchKernel, a launch through a kernel pointer
// to a kernel no unit registered, a launch of a kernel the unit only declares, or of one of two
// namespaces' kernels of one name; arguments that cannot be evaluated again) gives every buffer its
// state. So does a written argument that points into no buffer (a redzone: `d - 1`, memory hirace does
// not track): the writes through it may land anywhere.
//
// A buffer without state is still in the range table (check.h: its accesses are bounds-checked, and the
// check stops there); one that got state keeps it (a later launch's records read as INIT anyway). The
// quiet version of a kernel (quiet_version.h) and a kernel left out of the check need none.
#ifndef HIRACE_HOST_BUFFER_STATE_H
#define HIRACE_HOST_BUFFER_STATE_H

#include "host_quiet.h"

namespace hirace {
namespace host {

constexpr bool kLazyState = HIRACE_LAZY_STATE != 0;

// Buffer b's shadow (all INIT) and slots (all empty), where it has none yet
inline void give_state(Buffer &b) {
  if (!b.live || b.shadow || !b.size) return;
  shadow_buffer(b);
  ++state().generation;   // (the range table names the new shadow)
}

// Before a launch that the check follows (`checked`: its kernel selected, not its quiet version), with
// the argument values quiet_params gave for it (`args`: take_quiet_args's, copied before it forgets them):
// the buffers it may write get their state.
inline void state_for_launch(const QuietArgs &args, bool checked) {
  if (!kLazyState || !checked) return;
  State &s = state();
  bool all = !args.known;
  int found[32];
  for (unsigned j = 0; j < args.nwritten && !all; ++j) {
    found[j] = args.written[j] ? buffer_at(args.written[j]) : -2;   // (a null argument writes nothing here)
    all = found[j] == -1;
  }
  if (all) {
    for (Buffer &b : s.buffers) give_state(b);
    return;
  }
  for (unsigned j = 0; j < args.nwritten; ++j)
    if (found[j] >= 0) give_state(s.buffers[size_t(found[j])]);
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_BUFFER_STATE_H
