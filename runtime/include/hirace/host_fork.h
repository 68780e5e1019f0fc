// A program that forks: its pending launches are read back before the fork (pthread_atfork's prepare,
// so that the child never reports them), and the child keeps only what it finds itself (its
// parent's records stay its parent's; it writes a log of its own: host_log.h).
#ifndef HIRACE_HOST_FORK_H
#define HIRACE_HOST_FORK_H

#include "host_state.h"

namespace hirace {
namespace host {

// In a child the program forks, after init: the child writes a log of its own (beside HIRACE_LOG,
// or in HIRACE_LOG_DIR), of the launches it makes; its parent's records stay its parent's. The
// parent's launches are read back before the fork (fork_prepare): a child that read them after
// would report them as its own.
inline std::recursive_mutex &launch_mutex();
inline void fork_prepare() {
  std::lock_guard<std::recursive_mutex> hold(launch_mutex());
  drain();
}
inline void fork_child() {
  State &s = state();
  s.parents_launches = s.launches.size();
  s.parents_races = s.races.size();
  s.parents_mems = s.mem_errors.size();
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_FORK_H
