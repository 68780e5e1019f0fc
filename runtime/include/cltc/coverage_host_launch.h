// cltc coverage's host side around launches: `before_launch` (on the cpu backend it makes room for
// the launch's per-block barrier counters and hands them to each unit) and `before_reset`, which
// collects the flags before `cudaDeviceReset` frees them.
#ifndef CLTC_COVERAGE_HOST_LAUNCH_H
#define CLTC_COVERAGE_HOST_LAUNCH_H

#include "coverage_host_log.h"

namespace cltc {
namespace cov {
namespace host {

// Before every launch: make room for the launch's per-block barrier counters.
inline void before_launch(dim3 grid, dim3 block) {
  (void)block;
  init();
  State &s = state();
  ++s.launches;
#if !defined(__CUDACC__) || defined(CUDAEMU)  // the GPU counts barrier arrivals in shared memory
  size_t blocks = size_t(grid.x) * grid.y * grid.z;
  for (size_t i = 0; i < s.arrivals.size(); ++i) {
    Arrivals &a = s.arrivals[i];
    if (blocks <= a.cap) continue;
    size_t cap = blocks > 2 * a.cap ? blocks : 2 * a.cap;
    cudaError_t e;
    if (a.st.arrivals) {
      cudaDeviceSynchronize();  // earlier launches may still count into the old arrays
      cudaFree(a.st.arrivals);
      cudaFree(a.st.exits);
    }
    if ((e = cudaMalloc(reinterpret_cast<void **>(&a.st.arrivals), cap * a.barriers * sizeof(unsigned))))
      fail(e, "barrier counter allocation");
    if ((e = cudaMalloc(reinterpret_cast<void **>(&a.st.exits), cap * sizeof(unsigned))))
      fail(e, "barrier counter allocation");
    cudaMemset(a.st.arrivals, 0, cap * a.barriers * sizeof(unsigned));
    cudaMemset(a.st.exits, 0, cap * sizeof(unsigned));
    a.cap = cap;
    for (const Tu &tu : s.tus)
      if (tu.arrivals == int(i)) tu.set_barriers(a.st);
  }
#else
  (void)grid;
#endif
}

// `cudaDeviceReset()` -> `(before_reset(), cudaDeviceReset())`: collect first,
// since the reset frees every device allocation.
inline void before_reset() {
  State &s = state();
  if (!s.init) return;
  pull();
  for (Arrivals &a : s.arrivals) {
    a.st = BarrierState{nullptr, nullptr};
    a.cap = 0;
  }
}

}  // namespace host
}  // namespace cov
}  // namespace cltc

#endif  // CLTC_COVERAGE_HOST_LAUNCH_H
