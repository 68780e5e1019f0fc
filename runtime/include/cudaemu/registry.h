// cudaemu: kernels named by their address, as the runtime API names them (cudaLaunchKernel,
// cudaLaunchCooperativeKernel, a graph's kernel node: graphs.h). The cpu lowering registers every kernel
// of a unit that names such a call (instrument/frontend/lower_cpu.py `_register_kernels`) with its
// parameter types, so that its address and the addresses of its arguments make a call; a kernel template or
// an overloaded kernel is not registered, and a launch of it fails with cudaErrorInvalidDeviceFunction and
// a message. Included by cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_REGISTRY_H
#define CUDAEMU_REGISTRY_H

namespace cudaemu::graphs {

// The place of the program's call that is being made (a tool's hook sets it; the emulation's own calls
// leave it empty): captured nodes and launches through cudaLaunchKernel are named by it.
inline thread_local const char *g_site_file = nullptr, *g_site_api = nullptr;
inline thread_local int g_site_line = 0;
inline void site(const char *file, int line, const char *api = nullptr) {
  g_site_file = file;
  g_site_line = line;
  g_site_api = api;
}
// ------------------------------------------------------------------ the kernel registry
// A kernel's call with its parameters copied (as CUDA copies them when a launch or node is made), and where
// each copy lies (`params`, as a kernel's `void **` arguments: a tool reads them before a node's grid runs)
struct Bound {
  std::function<void(detail::Launch)> run;
  std::vector<void *> params;
};
struct Registered {
  const char *name;
  std::function<Bound(void **)> bind;
};
inline std::map<const void *, Registered> &registry() {
  static std::map<const void *, Registered> *r = new std::map<const void *, Registered>;
  return *r;
}
template <class... P, size_t... I>
Bound bind_args(void (*k)(P...), void **args, std::index_sequence<I...>) {
  auto t = std::make_shared<std::tuple<std::decay_t<P>...>>(*static_cast<std::decay_t<P> *>(args[I])...);
  return Bound{[k, t](detail::Launch L) { detail::run_kernel(L, k, *t); },
               std::vector<void *>{static_cast<void *>(&std::get<I>(*t))...}};
}
template <class... P> bool register_kernel(void (*k)(P...), const char *name) {
  registry()[reinterpret_cast<const void *>(k)] =
      Registered{name, [k](void **args) { return bind_args<P...>(k, args, std::index_sequence_for<P...>{}); }};
  return true;
}
inline const Registered *find_kernel(const void *func, const char *api) {
  auto it = registry().find(func);
  if (it != registry().end()) return &it->second;
  std::fprintf(stderr, "cudaemu: %s names a kernel the cpu backend does not know (a kernel template or an overloaded "
               "kernel is not registered: launch it with <<<...>>>)\n", api);
  return nullptr;
}

}  // namespace cudaemu::graphs

// ------------------------------------------------------------------ launches through the runtime API
inline cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shm = 0,
                                    cudaStream_t s = nullptr) {
  namespace G = ::cudaemu::graphs;
  const char *file = G::g_site_file ? G::g_site_file : "";
  int line = G::g_site_line;
  G::site(nullptr, 0);
  const G::Registered *k = G::find_kernel(func, "cudaLaunchKernel");
  if (!k) return ::cudaemu::detail::record(cudaErrorInvalidDeviceFunction);
  if (!::cudaemu::detail::valid_config(grid, block, shm)) return ::cudaemu::detail::g_last_error;
  k->bind(args).run(::cudaemu::detail::Launch{k->name, file, line, grid, block, shm, nullptr, nullptr, s});
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaLaunchKernel(T *func, dim3 grid, dim3 block, void **args, size_t shm = 0, cudaStream_t s = nullptr) {
  return cudaLaunchKernel(reinterpret_cast<const void *>(func), grid, block, args, shm, s);
}
inline cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shm = 0,
                                               cudaStream_t s = nullptr) {
  return cudaLaunchKernel(func, grid, block, args, shm, s);
}
template <class T>
inline cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 grid, dim3 block, void **args, size_t shm = 0,
                                               cudaStream_t s = nullptr) {
  return cudaLaunchKernel(reinterpret_cast<const void *>(func), grid, block, args, shm, s);
}

#endif  // CUDAEMU_REGISTRY_H
