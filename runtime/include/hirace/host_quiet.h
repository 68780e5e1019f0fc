// Quiet parameters and quiet versions, chosen per launch: the argument values the planner passes for
// a kernel's quiet candidates (quiet_params) become the launch state's quiet_params mask and bounds
// (take_quiet_args), and a kernel's quiet version is offered with the host's test of its launch
// conditions (quiet_version; before_launch chooses: host_launch.h).
#ifndef HIRACE_HOST_QUIET_H
#define HIRACE_HOST_QUIET_H

#include "host_alloc.h"

namespace hirace {
namespace host {

// The next launch's argument values for its kernel's quiet candidates (read-only parameters, then
// own parameters: see quiet.h rd_param and rd_own), for the parameters it writes through and, where
// it has own candidates (bits in `own`), for all its pointer parameters, given by quiet_params just
// before before_launch.
struct QuietArgs {
  unsigned ncand = 0, nwritten = 0, npointers = 0, own = 0, npairs = 0;
  unsigned pairs[kQuietParams];   // a read-only bit | an own bit << 8: one pointer may be passed to both
  bool known = false;   // every written (and pointer) argument is a known pointer
  const void *cand[kQuietParams];
  const void *written[32];
  const void *pointers[32];
};
inline QuietArgs &pending_quiet() {
  static thread_local QuietArgs q;
  return q;
}
struct ArgAddress {
  const void *p;
  bool known;
};
template <class T> inline ArgAddress arg_address(T *p) { return {(const void *)p, true}; }
template <class T> inline ArgAddress arg_address(const T &) { return {nullptr, false}; }
inline void quiet_params(std::initializer_list<ArgAddress> cand, std::initializer_list<ArgAddress> written,
                         std::initializer_list<ArgAddress> pointers = {}, unsigned own = 0,
                         std::initializer_list<unsigned> pairs = {}) {
  QuietArgs q;
  q.known = written.size() <= 32 && pointers.size() <= 32;
  q.own = own;
  for (unsigned pr : pairs)
    if (q.npairs < kQuietParams) q.pairs[q.npairs++] = pr;
  for (const ArgAddress &a : cand)
    if (q.ncand < kQuietParams) q.cand[q.ncand++] = a.known ? a.p : nullptr;
  for (const ArgAddress &a : written) {
    q.known = q.known && a.known;
    if (q.nwritten < 32) q.written[q.nwritten++] = a.p;
  }
  for (const ArgAddress &a : pointers) {
    q.known = q.known && a.known;
    if (q.npointers < 32) q.pointers[q.npointers++] = a.p;
  }
  pending_quiet() = q;
}
// The live buffer holding address p, or -1
inline int buffer_at(const void *p) {
  State &s = state();
  unsigned long long a = (unsigned long long)p;
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const Buffer &b = s.buffers[i];
    if (b.live && a >= (unsigned long long)b.base && a < (unsigned long long)b.base + b.size) return int(i);
  }
  return -1;
}
// The launch state's quiet_params mask and bounds from the argument values quiet_params gave (none
// given: no parameter is quiet), which are then forgotten. A read-only candidate is quiet where no
// written argument points into its buffer; an own candidate where no other pointer argument does. A
// pair passed one pointer (the read-only one read only where the own one's thread writes:
// readonly_params.py) allows that one written argument, and that one other pointer argument.
inline void take_quiet_args(LaunchState &L) {
  State &s = state();
  const QuietArgs quiet = pending_quiet();
  pending_quiet() = QuietArgs{};
  if (!quiet.known) return;
  int written[32], pointers[32];   // the buffers the written (and all pointer) arguments point into
  for (unsigned j = 0; j < quiet.nwritten; ++j) written[j] = quiet.written[j] ? buffer_at(quiet.written[j]) : -1;
  for (unsigned j = 0; j < quiet.npointers; ++j) pointers[j] = quiet.pointers[j] ? buffer_at(quiet.pointers[j]) : -1;
  for (unsigned i = 0; i < quiet.ncand; ++i) {
    int b = quiet.cand[i] ? buffer_at(quiet.cand[i]) : -1;
    bool shared = b < 0, paired = false;   // (paired: its partner is passed its very pointer)
    for (unsigned k = 0; k < quiet.npairs; ++k) {
      unsigned r = quiet.pairs[k] & 0xffu, o = quiet.pairs[k] >> 8;
      if ((r == i || o == i) && r < quiet.ncand && o < quiet.ncand && quiet.cand[r] == quiet.cand[o]) paired = true;
    }
    if (quiet.own >> i & 1u) {
      unsigned holders = 0;   // the candidate itself is one of the pointer arguments (and its partner)
      for (unsigned j = 0; j < quiet.npointers; ++j) holders += pointers[j] == b;
      shared = shared || holders != (paired ? 2u : 1u);
    } else {
      unsigned same = 0;   // (paired: the one written argument into its buffer is its partner's pointer)
      for (unsigned j = 0; j < quiet.nwritten; ++j) {
        if (written[j] != b) continue;
        if (paired && quiet.written[j] == quiet.cand[i]) ++same;
        else shared = true;
      }
      shared = shared || same > 1;
      if (same == 1 && !shared) L.quiet_paired |= 1u << i;
    }
    if (shared) continue;
    L.quiet_params |= 1u << i;
    L.quiet_lo[i] = (unsigned long long)s.buffers[b].base;
    L.quiet_hi[i] = L.quiet_lo[i] + s.buffers[b].size;
  }
}

// A kernel with a quiet version (quiet_version.h, namespace q): `ok`, the host's test of its sites' launch
// conditions for the next launch, and `need`, the quiet candidates its sites need quiet; given just
// before before_launch, which chooses the version (quiet_chosen) and forgets them.
struct QuietVersion {
  bool offered = false, ok = false;
  unsigned need = 0;
};
inline QuietVersion &pending_version() {
  static thread_local QuietVersion v;
  return v;
}
inline void quiet_version(bool ok, unsigned need) { pending_version() = QuietVersion{true, ok, need}; }
// Does the launch between before_launch and after_launch run the quiet version?
inline bool quiet_chosen() { return state().quiet_chosen; }
// (the host's test of own_index: quiet.h)
inline bool own_index(dim3 block, dim3 grid, long long c_tx, long long c_ty, long long c_tz, long long c_bx,
                      long long c_by, long long c_bz, long long, long long c_k = 0, long long n_k = 1) {
  return own_index_of(block, grid, c_tx, c_ty, c_tz, c_bx, c_by, c_bz, c_k, n_k);
}
// (the host's test of fold_index: quiet.h)
template <class... T> inline bool fold_index(dim3 block, dim3 grid, T... values) {
  static_assert(sizeof...(T) == 17, "a form of 9 values, a butterfly's 6 coefficients, mask and radix");
  const long long v[17] = {(long long)values...};
  return fold_index_of(block, grid, v, v + 9, v[15], v[16]);
}
// (the host's test of forms_apart: quiet.h)
template <class... T> inline bool forms_apart(dim3 block, dim3 grid, T... values) {
  static_assert(sizeof...(T) == 18, "two forms of 9 values");
  const long long v[18] = {(long long)values...};
  return forms_apart_of(block, grid, v, v + 9);
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_QUIET_H
