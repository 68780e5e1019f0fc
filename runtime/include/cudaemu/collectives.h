// cudaemu: warp collectives (a warp or a tile of it), collectives of tiles wider than a warp, and
// coalesced_threads() in divergent code.
// Included by cudaemu.h; not meant to be included on its own.
#ifndef CUDAEMU_COLLECTIVES_H
#define CUDAEMU_COLLECTIVES_H

namespace cudaemu {
namespace detail {

// coalesced_threads() in a divergent branch: the lanes that take the branch reach the call, the others
// do not. A lane that calls it waits until no lane of its warp can still run (every other lane waits
// somewhere or has exited); then the lanes waiting at the same call form the group, as the lanes
// that were active together do on a GPU.
inline unsigned g_gathering = 0;   // threads waiting in coalesced_threads(); none: nothing to scan
inline void release_gathers(unsigned warp) {
  if (g_gathering == 0) return;
  size_t base = size_t(warp) * 32, end = std::min(base + 32, g_fibers.size());
  bool waiting = false;
  for (size_t i = base; i < end; ++i) {
    if (g_fibers[i].state == kRunnable) return;
    waiting |= g_fibers[i].state == kAtGather;
  }
  if (!waiting) return;
  for (size_t i = base; i < end; ++i) {
    Fiber &f = g_fibers[i];
    if (f.state != kAtGather) continue;
    unsigned mask = 0;
    for (size_t j = base; j < end; ++j)
      if (g_fibers[j].state == kAtGather && g_fibers[j].wait_line == f.wait_line &&
          std::strcmp(g_fibers[j].wait_file, f.wait_file) == 0)
        mask |= 1u << (j - base);
    for (size_t j = base; j < end; ++j)
      if (mask & (1u << (j - base))) {
        g_fibers[j].gather = mask;
        g_fibers[j].state = kRunnable;
        --g_gathering;
      }
  }
}

inline unsigned gather_coalesced(const char *file, int line) {
  Fiber *self = g_cur;
  self->state = kAtGather;
  ++g_gathering;
  self->wait_file = file;
  self->wait_line = line;
  self->gather = 0;
  switch_away(false);
  return self->gather;
}


inline void warp_check_release(Warp &w) {
  if (w.need == 0 || (w.arrived & w.need) != w.need) return;
  ++g_progress;
  w.part[w.gen & 1] = w.arrived;
  w.arrived = 0;
  w.need = 0;
  ++w.gen;
  size_t base = size_t(w.index) * 32;
  for (size_t i = base; i < base + 32 && i < g_fibers.size(); ++i)
    if (g_fibers[i].state == kAtWarp) g_fibers[i].state = kRunnable;
}

inline unsigned lane_live_mask(unsigned warp) {
  unsigned m = 0;
  size_t base = size_t(warp) * 32;
  for (size_t i = 0; i < 32 && base + i < g_fibers.size(); ++i)
    if (g_fibers[base + i].state != kDone) m |= 1u << i;
  return m;
}

// All lanes of `mask` (that exist and have not exited) meet; returns the
// collective's slot array, in which each lane stored `value`; *part (when
// given) receives the lanes that took part.
inline const unsigned long long *warp_meet(unsigned mask, unsigned long long value, const char *file,
                                           int line, unsigned *part = nullptr) {
  Fiber *self = g_cur;
  unsigned lane = self->linear % 32, index = self->linear / 32;
  Warp *wp = &g_block->warps[index];
  if (mask != 0xffffffffu) {   // a tile or another subset: its own collective
    wp = nullptr;
    for (Warp &g : g_block->groups)
      if (g.index == index && g.group == mask) wp = &g;
    if (!wp) {
      g_block->groups.emplace_back();
      wp = &g_block->groups.back();
      wp->index = index;
      wp->group = mask;
    }
  }
  Warp &w = *wp;
  unsigned gen = w.gen;
  const unsigned long long *slots = w.slots[gen & 1];
  w.slots[gen & 1][lane] = value;
  if (w.arrived == 0) {
    w.need = (mask | (1u << lane)) & lane_live_mask(index);
    w.file = file;
    w.line = line;
  }
  w.arrived |= 1u << lane;
  self->wait_file = file;
  self->wait_line = line;
  if ((w.arrived & w.need) == w.need) {
    warp_check_release(w);
  } else {
    while (w.gen == gen) {   // releases wake the whole warp: wait for this collective's
      self->state = kAtWarp;
      switch_away(config().seeded);
    }
  }
  if (part) *part = w.part[gen & 1];
  return slots;
}

inline unsigned tile_live(const TileMeet &t) {
  unsigned n = 0;
  for (size_t i = t.base; i < size_t(t.base) + t.size && i < g_fibers.size(); ++i) n += g_fibers[i].state != kDone;
  return n;
}

inline void tile_check_release(TileMeet &t) {
  if (t.arrived == 0 || t.arrived < t.need) return;
  ++g_progress;
  t.arrived = 0;
  ++t.gen;   // the next collective uses the other parity: the one before the last, long read
  std::fill(t.took[t.gen & 1].begin(), t.took[t.gen & 1].end(), 0);
  for (size_t i = t.base; i < size_t(t.base) + t.size && i < g_fibers.size(); ++i)
    if (g_fibers[i].state == kAtWarp) g_fibers[i].state = kRunnable;
}

// The live threads of the calling thread's tile of `size` threads (a multiple of 32) meet; returns
// the collective's slots (member rank -> value) and, in *took, which members took part.
inline const unsigned long long *tile_meet(unsigned size, unsigned long long value, const char *file, int line,
                                           const char **took = nullptr) {
  Fiber *self = g_cur;
  unsigned base = self->linear / size * size;
  TileMeet *tp = nullptr;
  for (TileMeet &t : g_block->tiles)
    if (t.base == base && t.size == size) tp = &t;
  if (!tp) {
    g_block->tiles.emplace_back();
    tp = &g_block->tiles.back();
    tp->base = base;
    tp->size = size;
    for (int k = 0; k < 2; ++k) {
      tp->slots[k].assign(size, 0);
      tp->took[k].assign(size, 0);
    }
  }
  TileMeet &t = *tp;
  unsigned gen = t.gen, rank = self->linear - base;
  t.slots[gen & 1][rank] = value;
  t.took[gen & 1][rank] = 1;
  if (t.arrived++ == 0) t.need = tile_live(t);   // counted once per collective, not per arrival
  self->wait_file = file;
  self->wait_line = line;
  if (t.arrived >= t.need) {
    tile_check_release(t);
  } else {
    while (t.gen == gen) {   // releases wake the whole tile: wait for this collective's
      self->state = kAtWarp;
      switch_away(config().seeded);
    }
  }
  if (took) *took = t.took[gen & 1].data();
  return t.slots[gen & 1].data();
}


template <class T> inline unsigned long long to_bits(T v) {
  static_assert(sizeof(T) <= 8, "cudaemu: warp shuffles of types wider than 8 bytes are not supported");
  unsigned long long b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T> inline T from_bits(unsigned long long b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

}  // namespace detail
}  // namespace cudaemu

#endif  // CUDAEMU_COLLECTIVES_H
