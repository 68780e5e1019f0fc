// C entry points for launching kernels from Python (cpu backend, through ctypes).
// instrument/kernel_lib/harness.py writes one entry per kernel:
//   extern "C" int cctk_py_launch_<s>_<k>(const unsigned *dims, unsigned long long shm, void **args)
// dims = grid x, y, z, block x, y, z; args[i] points at the value of parameter i
// (for pointer parameters: at the pointer). The harness includes the kernel's
// source, so the launch is an ordinary `<<<...>>>` that every tool instruments.
#ifndef CLTC_PYLAUNCH_H
#define CLTC_PYLAUNCH_H

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace pylaunch {

template <class F> struct params;
template <class... P> struct params<void (*)(P...)> {
  using type = std::tuple<P...>;
};

// the type of parameter I of kernel F, as a value
template <class F, std::size_t I>
using param_t = std::remove_cv_t<std::remove_reference_t<std::tuple_element_t<I, typename params<F>::type>>>;

template <class F, std::size_t I> inline param_t<F, I> &arg(void **args) {
  return *static_cast<param_t<F, I> *>(args[I]);
}

}  // namespace pylaunch

#endif  // CLTC_PYLAUNCH_H
