// Launches through a kernel pointer (`kernel<<<grid, block>>>(args)`, where the program picks the
// kernel as it runs: transpose's table of variants). Each kernel with quiet candidates or a quiet
// version registers, by its address, its name, what a launch of it does just before before_launch (its
// quiet_params, its quiet version's test: hirace/pointer_launches.py writes both), its version and
// whether it starts with block_entry (then the launch, which asks for launch_shared_bytes on the gpu
// backend, gives it hirace's shared area: its clocks and shared shadow out of global memory);
// a launch through a pointer looks its kernel up. A pointer to a kernel no unit registered, or one
// of another type than the kernel's, finds nothing: no parameter is quiet and no version runs, so
// every site takes the whole check where its proof needs the launch's word.
#ifndef HIRACE_HOST_KERNEL_POINTERS_H
#define HIRACE_HOST_KERNEL_POINTERS_H

#include <unordered_map>
#include <utility>
#include <vector>

#include "host_quiet.h"

namespace hirace {
namespace host {

template <class F> struct KernelType {
  static constexpr char id = 0;   // one address per kernel type, in every unit
};
struct KernelEntry {
  const void *type;      // &KernelType<void (*)(A...)>::id
  const char *name;      // the kernel's name, for reports
  void (*prepare)();     // void (*)(dim3 block, dim3 grid, A...), or nullptr: nothing to prepare
  void (*version)();     // void (*)(A...), or nullptr: no quiet version
  bool entered;          // it starts with block_entry: a launch may give it hirace's shared area
  // `prepare` called with arguments given as a kernel's `void **` (each the address of one, A's types): a
  // graph's kernel node (host_graphs.h), whose call holds its copies of the arguments
  void (*prepare_params)(void (*prepare)(), dim3 block, dim3 grid, void *const *params);
  size_t arity;
};
template <class... A, size_t... I>
inline void prepare_from(void (*prepare)(), dim3 block, dim3 grid, void *const *p, std::index_sequence<I...>) {
  reinterpret_cast<void (*)(dim3, dim3, A...)>(prepare)(block, grid, *static_cast<std::decay_t<A> *>(p[I])...);
}
template <class... A> inline void prepare_params(void (*prepare)(), dim3 block, dim3 grid, void *const *p) {
  prepare_from<A...>(prepare, block, grid, p, std::index_sequence_for<A...>{});
}
inline std::unordered_map<const void *, KernelEntry> &kernel_entries() {
  static std::unordered_map<const void *, KernelEntry> m;   // (filled by the units' static initializers)
  return m;
}
template <class T> struct Given {
  using type = T;   // (a parameter its argument does not deduce: nullptr is welcome there)
};
template <class... A>
inline bool kernel_entry(void (*k)(A...), const char *name, typename Given<void (*)(dim3, dim3, A...)>::type prepare,
                         typename Given<void (*)(A...)>::type version, bool entered = false) {
  kernel_entries()[(const void *)k] = KernelEntry{&KernelType<void (*)(A...)>::id, name,
                                                  reinterpret_cast<void (*)()>(prepare),
                                                  reinterpret_cast<void (*)()>(version), entered,
                                                  &prepare_params<A...>, sizeof...(A)};
  return true;
}
template <class... A> inline const KernelEntry *entry_of(void (*k)(A...)) {
  auto it = kernel_entries().find((const void *)k);
  return it != kernel_entries().end() && it->second.type == &KernelType<void (*)(A...)>::id ? &it->second : nullptr;
}
// Before before_launch: the launch's quiet parameters and version test, where its kernel registered them.
template <class... A, class... B> inline void pointer_prepare(void (*k)(A...), dim3 block, dim3 grid, B &&...args) {
  const KernelEntry *e = entry_of(k);
  if (e && e->prepare)
    reinterpret_cast<void (*)(dim3, dim3, A...)>(e->prepare)(block, grid, std::forward<B>(args)...);
}
// The same for a kernel known by its address alone, its arguments given as a kernel's `void **` (a graph's kernel
// node: the address is a registered kernel's, cudaemu/registry.h, whose type its entry has). The launch runs the
// kernel itself, never its quiet version: what the preparation offered of that is forgotten.
inline void params_prepare(const void *k, dim3 block, dim3 grid, const std::vector<void *> &params) {
  auto it = kernel_entries().find(k);
  if (it == kernel_entries().end() || !it->second.prepare || it->second.arity != params.size()) return;
  it->second.prepare_params(it->second.prepare, block, grid, params.data());
  pending_version() = QuietVersion{};
}
// Does the launch (its shared memory asked through launch_shared_bytes) run a kernel that takes
// hirace's shared area (host_launch.h before_launch `area_ok`)? Only one that registered as entered.
template <class... A> inline bool pointer_area(void (*k)(A...)) {
  const KernelEntry *e = entry_of(k);
  return e && e->entered;
}
// The name reports give the launch: its kernel's, where it registered one.
template <class... A> inline const char *kernel_name(void (*k)(A...), const char *pointer) {
  const KernelEntry *e = entry_of(k);
  return e ? e->name : pointer;
}
// The kernel the launch runs where before_launch chose the quiet version (quiet_chosen()).
template <class... A> inline auto version_of(void (*k)(A...)) -> void (*)(A...) {
  const KernelEntry *e = entry_of(k);
  return e && e->version ? reinterpret_cast<void (*)(A...)>(e->version) : k;
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_KERNEL_POINTERS_H
