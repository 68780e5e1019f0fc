// The shadow's granularity per buffer: a buffer's shadow word covers 1 << shift bytes, kBufferShift
// (4 bytes) when it is allocated, and never more than the narrowest access that may touch it, so an
// `int` buffer keeps one word per element in a program that also has `bool` arrays (a word per byte
// would make each of its accesses four updates and its shadow four times larger).
//
// Which accesses a launch may make where is the planner's (hirace/buffer_widths.py): just before
// before_launch, a launch of a kernel it knows passes `buffer_widths({arguments}, {shifts}, other)`:
// the narrowest access through each of those pointer arguments, and `other`, the narrowest access the
// launch makes by any other way (a pointer it made or loaded, a __device__ variable, a device function,
// a device memcpy). Before the launch, each argument's buffer and, for `other`, every buffer is made
// as fine as that (refine_buffer); a launch that passes none (a kernel pointer no unit registered, a
// graph's node on the gpu backend, cudaLaunchKernel) makes every buffer as fine as the program's narrowest access (kShift),
// the granularity every buffer had before.
//
// A buffer made finer gets a new shadow, all INIT, and new slots, all empty: nothing is lost, since
// between launches every record of a shadow is an earlier launch's, which reads as INIT anyway
// (update.h, ThreadCtx::base); the launches still pending are read back first (they use the old one).
#ifndef HIRACE_HOST_GRANULARITY_H
#define HIRACE_HOST_GRANULARITY_H

#include <tuple>
#include <type_traits>

#include "host_quiet.h"

namespace hirace {
namespace host {

struct LaunchWidths {
  bool given = false;
  unsigned n = 0;
  const void *args[32];
  unsigned shifts[32];
  unsigned other = kBufferShift;
};
inline LaunchWidths &pending_widths() {
  static thread_local LaunchWidths w;
  return w;
}

// The next launch's narrowest accesses (hirace/buffer_widths.py writes the call): `shifts[i]` for the
// buffer `args[i]` points into, `other` for any buffer. Arguments beyond 32 are taken as `other`.
inline void buffer_widths(std::initializer_list<ArgAddress> args, std::initializer_list<unsigned> shifts,
                          unsigned other) {
  LaunchWidths w;
  w.given = true;
  w.other = other;
  auto s = shifts.begin();
  for (const ArgAddress &a : args) {
    unsigned shift = s != shifts.end() ? *s++ : 0;
    if (!a.known) w.other = std::min(w.other, shift);   // (not a pointer after all: wherever it goes)
    else if (w.n < 32) {
      w.args[w.n] = a.p;
      w.shifts[w.n++] = shift;
    } else {
      w.other = std::min(w.other, shift);
    }
  }
  pending_widths() = w;
}

// The width of a launch's accesses through parameter I of kernel `k`, elements of a template's type
// (`p[i]` of a `T *p`), as `shift` or its pointee's, which the launch's compiler knows: the largest power
// of two that divides its size, at most kBufferShift (a void or function pointee: one byte).
template <unsigned I, class... A> constexpr unsigned pointee_shift(void (*)(A...), unsigned shift) {
  using P = typename std::tuple_element<I, std::tuple<A...>>::type;
  using T = typename std::remove_pointer<P>::type;
  unsigned s = 0;
  if constexpr (std::is_pointer<P>::value && !std::is_void<T>::value && !std::is_function<T>::value) {
    constexpr unsigned long long n = sizeof(T), w = n & (~n + 1);
    s = w >= (1ull << kBufferShift) ? kBufferShift : w == 4 ? 2u : w == 2 ? 1u : 0u;
  }
  return s < shift ? s : shift;
}

// Buffer b's shadow and slots at the finer granularity `shift` (its launches read back first)
inline void refine_buffer(Buffer &b, unsigned shift) {
  if (shift >= b.shift || !b.live) return;
  if (!b.shadow) {   // (no state yet, host_buffer_state.h: no launch has records of it)
    b.shift = shift;
    ++state().generation;
    return;
  }
  drain();
  tool_free(b.shadow);
  tool_free(b.sites);
  b.shadow = nullptr;
  b.sites = nullptr;
  b.shift = shift;
  shadow_buffer(b);
  ++state().generation;
}

// Before a launch: every buffer as fine as the accesses it may meet (the widths given, else kShift);
// an argument that points into no buffer (null, host memory, a redzone: `d - 1`) counts as `other`.
// The widths given are forgotten.
inline void refine_for_launch() {
  const LaunchWidths w = pending_widths();
  pending_widths() = LaunchWidths{};
  if (kBufferShift == kShift) return;
  State &s = state();
  unsigned other = w.given ? std::min(w.other, kBufferShift) : kShift;
  int found[32];
  for (unsigned j = 0; j < w.n; ++j) {
    found[j] = w.args[j] ? buffer_at(w.args[j]) : -1;
    if (found[j] < 0) other = std::min(other, w.shifts[j]);
  }
  other = std::max(other, kShift);
  for (size_t i = 0; i < s.buffers.size(); ++i)
    if (s.buffers[i].live && s.buffers[i].shift > other) refine_buffer(s.buffers[i], other);
  for (unsigned j = 0; j < w.n; ++j)
    if (found[j] >= 0) refine_buffer(s.buffers[size_t(found[j])], std::max(kShift, w.shifts[j]));
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_GRANULARITY_H
