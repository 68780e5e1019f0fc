// The memory budget of the prior-site slots (HIRACE_SITES_BUDGET, default 2; 0: no limit). The check
// itself needs a buffer's shadow (8 bytes a word); its slots (16 bytes a word) are there only to name the
// earlier access of a race, and they are two thirds of hirace's memory where a program writes its buffers
// in place. So a buffer keeps slots only while hirace's device memory -- every shadow and every slot, its
// logs and tables, the redzones -- stays within `budget` times the program's (a run then takes at most
// budget + 1 times the program's memory where the shadows fit in that), or while the slots in all stay
// within kSitesFloor bytes (cudacommon/protocol_core.h; a small program keeps them for every buffer):
// - a buffer given its shadow (host_alloc.h shadow_buffer) first takes the slots of others where the
//   shadow would not fit beside them (the largest first): the check's state comes before the names;
// - then it gets slots of its own if they fit; else it goes without (`budgeted`: the log says so, and a
//   race there names the earlier access's thread and kind, not its site);
// - a race found in a buffer without slots asks for them (`wants_sites`, host_readback.h drain): before
//   the next launch the buffer gets them whatever the budget, and keeps them, so the next launch that
//   races there names both accesses. A program with a race pays the memory; a clean one does not.
#ifndef HIRACE_HOST_SITE_BUDGET_H
#define HIRACE_HOST_SITE_BUDGET_H

#include "host_init.h"

namespace hirace {
namespace host {

inline unsigned *site_slots(size_t bytes);
inline void tool_free(void *p);
inline size_t shadow_words(size_t bytes, unsigned shift);   // (host_alloc.h)

inline size_t shadow_bytes(const Buffer &b) { return shadow_words(b.size, b.shift) * 8; }
inline size_t slot_bytes(const Buffer &b) { return shadow_words(b.size, b.shift) * 4 * kSiteSlots; }

// hirace's device memory (its allocations, the buffers' shadows and slots among them, and the redzones
// around the program's buffers), the slots' part of it, and the program's bytes, buffer b's among them
// (add_buffer's is not listed yet)
struct StateTally {
  size_t program = 0, tool = 0, sites = 0;
};
inline StateTally tally_state(const Buffer &b) {
  StateTally t;
  auto add = [&t](const Buffer &x) {
    t.program += x.size;
    t.tool += 2 * x.redzone;
    if (x.sites) t.sites += slot_bytes(x);
  };
  for (const Buffer &x : state().buffers)
    if (x.live && &x != &b) add(x);
  add(b);
  for (const auto &m : state().tool_memory)
#if defined(CUDAEMU)   // (the cpu backend's shared-memory slices: reserved for every block slot, touched as used)
    if (m.first != state().d_shared && m.first != state().d_shared_sites)
#endif
      t.tool += m.second;
  return t;
}

// Does the budget hold with `shadow` and `sites` more bytes of state?
inline bool within_budget(const StateTally &t, size_t shadow, size_t sites) {
  const size_t budget = state().sites_budget;
  return !budget || t.sites + sites <= ::cctk::kSitesFloor || t.tool + shadow + sites <= budget * t.program;
}

// Before buffer b gets its shadow: the slots of other buffers given up, the largest first, until the
// budget holds with that shadow (never a buffer's a race asked for).
inline void make_room_for_shadow(const Buffer &b) {
  State &s = state();
  if (!s.sites_budget) return;
  StateTally t = tally_state(b);
  bool drained = false;
  while (!within_budget(t, shadow_bytes(b), 0)) {
    Buffer *largest = nullptr;
    for (Buffer &x : s.buffers)
      if (x.live && x.sites && !x.wants_sites && &x != &b && (!largest || slot_bytes(x) > slot_bytes(*largest)))
        largest = &x;
    if (!largest) return;
    if (!drained) drain();   // (no pending launch may use them)
    drained = true;
    t.sites -= slot_bytes(*largest);
    t.tool -= slot_bytes(*largest);
    tool_free(largest->sites);
    largest->sites = nullptr;
    largest->budgeted = true;
    ++s.generation;
  }
}

// After buffer b got its shadow: may it have slots too?
inline bool sites_fit(Buffer &b) {
  if (b.wants_sites || within_budget(tally_state(b), 0, slot_bytes(b))) return true;
  b.budgeted = true;
  return false;
}

// Before a launch: the buffers a race asked slots for get them (whatever the budget).
inline void give_wanted_sites() {
  State &s = state();
  if (!s.sites_wanted) return;
  s.sites_wanted = false;
  drain();   // (the pending launches ran without them: host_readback.h tells their races so)
  for (Buffer &b : s.buffers)
    if (b.wants_sites && b.live && b.shadow && !b.sites && s.prior_sites && !s.sites_evicted) {
      int current = b.device;   // (on the buffer's device, as its shadow: host_alloc.h shadow_buffer)
      cudaGetDevice(&current);
      if (current != b.device) cudaSetDevice(b.device);
      b.sites = site_slots(slot_bytes(b));
      if (current != b.device) {
        check_cuda(cudaDeviceSynchronize(), "site shadow reset");
        cudaSetDevice(current);
      }
      ++s.generation;
    }
}

// A race record of a buffer that had no slots (the earlier access unnamed): the buffer asks for them.
inline void race_without_sites(unsigned buffer) {
  State &s = state();
  if (buffer >= s.buffers.size()) return;
  Buffer &b = s.buffers[buffer];
  if (b.sites || b.wants_sites || !s.prior_sites || s.sites_evicted) return;
  b.wants_sites = true;
  s.sites_wanted = true;
}

}  // namespace host
}  // namespace hirace

#endif  // HIRACE_HOST_SITE_BUDGET_H
