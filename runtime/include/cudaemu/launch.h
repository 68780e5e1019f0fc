// cudaemu: launches. `k<<<g, b, shm, s>>>(args)` is lowered to `::cudaemu::launcher(..., k)(args)`.
// Included by cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_LAUNCH_H
#define CUDAEMU_LAUNCH_H

namespace cudaemu {

// `k<<<g, b, shm, s>>>(args)` is lowered to `::cudaemu::launcher(..., k)(args)`:
// the call operator takes the kernel's parameter types, so the arguments
// convert exactly as in a CUDA launch (a literal 0 becomes a null pointer).
namespace detail {
inline bool valid_config(dim3 grid, dim3 block, size_t shm) {
  unsigned long long threads = 1ull * block.x * block.y * block.z;
  if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
      grid.y > 65535 || grid.z > 65535) {
    g_last_error = cudaErrorInvalidConfiguration;
    return false;
  }
  if (shm > 227 * 1024) {
    g_last_error = cudaErrorInvalidValue;
    return false;
  }
  return true;
}
inline std::recursive_mutex g_launch_mutex;   // host threads that launch take turns: one grid at a time
// A tool's hook after each grid that ran (hirace's stream relation, hirace/host_streams.h); none by default
inline void (*g_launch_done)(const Launch &) = nullptr;
}  // namespace detail
namespace graphs {   // stream capture (graphs.h): a launch on a capturing stream becomes a node of its graph
inline int g_capturing = 0;   // streams that capture now
#if CUDAEMU_GRAPHS
inline bool capture_launch(const detail::Launch &L, std::function<void(detail::Launch)> run, const void *func,
                           std::vector<void *> params);
#else
[[noreturn]] inline void absent();   // (graphs_absent.h)
#endif
}  // namespace graphs
namespace detail {
template <class F, class Tuple> void run_kernel(Launch L, F f, Tuple args) {
#if CUDAEMU_GRAPHS
  if (graphs::g_capturing) {   // (the node keeps its copy of the arguments, and says where each lies: registry.h Bound)
    auto t = std::make_shared<Tuple>(args);
    std::vector<void *> params = std::apply([](auto &...x) { return std::vector<void *>{static_cast<void *>(&x)...}; }, *t);
    const void *func = nullptr;
    if constexpr (std::is_pointer_v<F>) func = reinterpret_cast<const void *>(f);
    if (graphs::capture_launch(L, [f, t](Launch M) { run_kernel(M, f, *t); }, func, std::move(params))) return;
  }
#else
  if (graphs::g_capturing) graphs::absent();
#endif
  std::lock_guard<std::recursive_mutex> hold(g_launch_mutex);
  if (!valid_config(L.grid, L.block, L.shm)) return;
  struct Env { F f; Tuple args; } env{f, args};
  L.body = [](void *e) {
    Env &en = *static_cast<Env *>(e);
    std::apply(en.f, en.args);  // copies: each thread gets its own parameters
  };
  L.env = &env;
  run_grid(L);
  if (g_launch_done) g_launch_done(L);
}
}  // namespace detail

template <class... P> struct Launcher {
  detail::Launch L;
  void (*k)(P...);
  void operator()(P... p) const { detail::run_kernel(L, k, std::tuple<P...>(p...)); }
};
template <class F> struct LauncherDeduced {  // template kernels whose arguments deduce
  detail::Launch L;
  F f;
  template <class... A> void operator()(A... a) const { detail::run_kernel(L, f, std::tuple<A...>(a...)); }
};
template <class... P>
Launcher<P...> launcher(const char *name, const char *file, int line, dim3 grid, dim3 block, size_t shm,
                        cudaStream_t s, void (*k)(P...)) {
  return Launcher<P...>{detail::Launch{name, file, line, grid, block, shm, nullptr, nullptr, s}, k};
}
template <class F, class = std::enable_if_t<!std::is_pointer_v<F> && !std::is_function_v<F>>>
LauncherDeduced<F> launcher(const char *name, const char *file, int line, dim3 grid, dim3 block, size_t shm,
                            cudaStream_t s, F f) {
  return LauncherDeduced<F>{detail::Launch{name, file, line, grid, block, shm, nullptr, nullptr, s}, f};
}

}  // namespace cudaemu

#endif  // CUDAEMU_LAUNCH_H
