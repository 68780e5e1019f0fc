// cudaemu: what the runtime API needs of stream capture in a program that calls no graph or capture function
// (CUDAEMU_GRAPHS=0: instrument/compile/cpu_parts.py saw none in any unit it builds). Nothing can capture: the
// calls that add a node to a capturing stream's graph (graphs.h) answer that the stream does not capture.
// Only a unit built with graphs.h starts a capture; a program whose units disagree (one built with the setting
// at 0 linked with one that captures) stops with a fault rather than run captured work at once. Included by
// cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_GRAPHS_ABSENT_H
#define CUDAEMU_GRAPHS_ABSENT_H

namespace cudaemu::graphs {

[[noreturn]] inline void absent() {
  detail::fault(kExitEmulationFault, "a stream captures, and a unit of this program was built without CUDA graphs "
                                     "(CUDAEMU_GRAPHS=0): build every unit of a program with the same setting");
}
inline bool capture_copy(cudaStream_t, void *, size_t, const void *, size_t, size_t, size_t) {
  if (g_capturing) absent();
  return false;
}
inline bool capture_set(cudaStream_t, void *, size_t, unsigned, unsigned, size_t, size_t) {
  if (g_capturing) absent();
  return false;
}
inline bool capture_host(cudaStream_t, cudaHostFn_t, void *) {
  if (g_capturing) absent();
  return false;
}
inline bool capture_record(cudaEvent_t, cudaStream_t) {
  if (g_capturing) absent();
  return false;
}
inline bool capture_wait(cudaStream_t, cudaEvent_t) {
  if (g_capturing) absent();
  return false;
}

}  // namespace cudaemu::graphs

#endif  // CUDAEMU_GRAPHS_ABSENT_H
