// cpu-backend cooperative groups: thread blocks, tiles (static up to 1024 threads, dynamic up to 32),
// coalesced groups, group collectives (shuffles, votes, reduce, scans). A grid's blocks run one
// after another here, so grid-wide synchronisation cannot work: the engine refuses it by name
// before the build, and grid_group::sync stops the run if it is reached anyway.
#pragma once
#include <type_traits>
#include <vector>
#include "../cudaemu.h"

namespace cooperative_groups {
namespace cudaemu_cg {
inline unsigned linear() { return unsigned(::cudaemu::linear_thread()); }
inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
// the lanes of the tile of `size` threads that the calling thread belongs to, within its warp
inline unsigned tile_mask(unsigned size) {
  if (size >= 32) return 0xffffffffu;
  unsigned lane = linear() % 32;
  return ((1u << size) - 1u) << (lane / size * size);
}
[[noreturn]] inline void refuse(const char *what) {
  ::cudaemu::detail::fault(::cudaemu::kExitEmulationFault, what);
}
}  // namespace cudaemu_cg

class thread_group {
 public:
  explicit thread_group(unsigned size = 0) : size_(size) {}   // 0: the whole block
  unsigned long long size() const { return size_ ? size_ : cudaemu_cg::block_threads(); }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const { return size_ ? cudaemu_cg::linear() % size_ : cudaemu_cg::linear(); }
  unsigned meta_group_rank() const { return size_ ? cudaemu_cg::linear() / size_ : 0; }
  unsigned meta_group_size() const {
    return size_ ? (cudaemu_cg::block_threads() + size_ - 1) / size_ : 1;
  }
  void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    if (size_ == 0) ::cudaemu::syncthreads(file, line);
    else ::cudaemu::syncwarp(file, line, cudaemu_cg::tile_mask(size_));
  }

 protected:
  unsigned size_;
};

class thread_block : public thread_group {
 public:
  thread_block() : thread_group(0) {}
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 dim_threads() const { return blockDim; }
  dim3 group_dim() const { return blockDim; }
};

class grid_group {
 public:
  void sync() const {
    cudaemu_cg::refuse("grid-wide synchronisation (grid_group::sync) is not supported on the cpu backend, "
                       "which runs a grid's blocks one after another; use --backend gpu");
  }
  unsigned long long num_blocks() const { return 1ull * gridDim.x * gridDim.y * gridDim.z; }
  unsigned long long block_rank() const {
    return blockIdx.x + 1ull * gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z);
  }
  unsigned long long size() const { return num_blocks() * cudaemu_cg::block_threads(); }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const { return block_rank() * cudaemu_cg::block_threads() + cudaemu_cg::linear(); }
  dim3 group_dim() const { return gridDim; }
  dim3 dim_blocks() const { return gridDim; }
  dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  bool is_valid() const { return true; }
};

// A group of lanes of one warp: tiles (static or dynamic size) and coalesced groups.
class coalesced_group : public thread_group {
 public:
  explicit coalesced_group(unsigned size, unsigned mask) : thread_group(size), mask_(mask) {}
  unsigned long long thread_rank() const {
    unsigned lane = cudaemu_cg::linear() % 32;
    return __builtin_popcount(mask_ & ((1u << lane) - 1u));
  }
  unsigned long long size() const { return __builtin_popcount(mask_); }
  unsigned long long num_threads() const { return size(); }
  void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    ::cudaemu::syncwarp(file, line, mask_);
  }
  // shuffles by rank in the group: the lanes of the group in order, whatever its mask
  template <class T> T shfl(T v, int src, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) const {
    int n = int(size());
    return pick(v, ((src % n) + n) % n, f, ln);
  }
  template <class T> T shfl_down(T v, unsigned d, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) const {
    return pick(v, int(thread_rank() + d), f, ln);
  }
  template <class T> T shfl_up(T v, unsigned d, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) const {
    return pick(v, int(thread_rank()) - int(d), f, ln);
  }
  template <class T> T shfl_xor(T v, unsigned m, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) const {
    return pick(v, int(thread_rank() ^ m), f, ln);
  }
  unsigned ballot(int pred, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) const {
    unsigned lanes = cudaemu_ballot(f, ln, mask_, pred), r = 0, k = 0;   // bit i: the member of rank i
    for (unsigned i = 0; i < 32; ++i)
      if (mask_ & (1u << i)) r |= ((lanes >> i) & 1u) << k++;
    return r;
  }
  int any(int pred, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) const {
    return cudaemu_ballot(f, ln, mask_, pred) != 0;
  }
  int all(int pred, const char *f = __builtin_FILE(), int ln = __builtin_LINE()) const {
    return cudaemu_all(f, ln, mask_, pred);
  }
  unsigned mask() const { return mask_; }
  // every member's value, in rank order (the collective under reduce and the scans)
  template <class T> void gather(T v, T *out, const char *f, int ln) const {
    const unsigned long long *s =
        ::cudaemu::detail::warp_meet(mask_, ::cudaemu::detail::to_bits(v), f, ln);
    unsigned k = 0;
    for (unsigned i = 0; i < 32; ++i)
      if (mask_ & (1u << i)) out[k++] = ::cudaemu::detail::from_bits<T>(s[i]);
  }

 protected:
  // every member's value meets; the caller gets the value of the member of rank `src` (its own when
  // there is no such member)
  template <class T> T pick(T v, int src, const char *f, int ln) const {
    unsigned lane = cudaemu_cg::linear() % 32, from = lane;
    if (src >= 0 && src < int(size())) {
      unsigned m = mask_;
      for (int k = 0; k < src; ++k) m &= m - 1u;
      from = unsigned(__builtin_ctz(m));
    }
    return ::cudaemu::detail::warp_pick(mask_, v, from, f, ln);
  }
  unsigned mask_;
};

// A tile wider than a warp (64, 128, ..., 1024 threads): sync, ranks and reduce, as on a GPU.
class multi_warp_group {
 public:
  explicit multi_warp_group(unsigned size) : size_(size) {}
  unsigned long long thread_rank() const { return cudaemu_cg::linear() % size_; }
  unsigned long long size() const { return size_; }
  unsigned long long num_threads() const { return size_; }
  unsigned meta_group_rank() const { return cudaemu_cg::linear() / size_; }
  unsigned meta_group_size() const { return (cudaemu_cg::block_threads() + size_ - 1) / size_; }
  void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    ::cudaemu::detail::tile_meet(size_, 0, file, line);
  }
  // the value of every member that took part, in rank order; returns how many
  template <class T> unsigned gather(T v, T *out, const char *f, int ln) const {
    const char *took = nullptr;
    const unsigned long long *s = ::cudaemu::detail::tile_meet(size_, ::cudaemu::detail::to_bits(v), f, ln, &took);
    unsigned k = 0;
    for (unsigned i = 0; i < size_; ++i)
      if (took[i]) out[k++] = ::cudaemu::detail::from_bits<T>(s[i]);
    return k;
  }

 protected:
  unsigned size_;
};

template <unsigned Size>
using tile_base = typename std::conditional<(Size <= 32), coalesced_group, multi_warp_group>::type;

template <unsigned Size, class Parent = void> class thread_block_tile : public tile_base<Size> {
  static_assert(Size > 0 && Size <= 1024 && (Size & (Size - 1)) == 0,
                "cudaemu: a tile's size is a power of two up to 1024");

 public:
  thread_block_tile() : thread_block_tile(std::integral_constant<bool, (Size <= 32)>()) {}
  template <class P> thread_block_tile(const thread_block_tile<Size, P> &) : thread_block_tile() {}
  unsigned long long thread_rank() const { return cudaemu_cg::linear() % Size; }
  static constexpr unsigned num_threads() { return Size; }
  static constexpr unsigned size() { return Size; }
  unsigned meta_group_rank() const { return cudaemu_cg::linear() / Size; }
  unsigned meta_group_size() const { return (cudaemu_cg::block_threads() + Size - 1) / Size; }

 private:
  explicit thread_block_tile(std::true_type) : coalesced_group(Size, cudaemu_cg::tile_mask(Size)) {}
  explicit thread_block_tile(std::false_type) : multi_warp_group(Size) {}
};

inline thread_block this_thread_block() { return thread_block(); }
// the scratch that tiles wider than a warp need on a GPU; the emulation keeps its own
template <unsigned MaxBlockSize = 1024> struct block_tile_memory {};
template <unsigned N> inline thread_block this_thread_block(block_tile_memory<N> &) { return thread_block(); }
inline grid_group this_grid() { return grid_group(); }
inline coalesced_group coalesced_threads(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
  return coalesced_group(32, ::cudaemu::detail::gather_coalesced(file, line));
}
// the members of a warp's group whose predicate is the caller's
template <class Parent>
coalesced_group binary_partition(const Parent &g, bool pred, const char *file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
  unsigned all = g.mask(), yes = cudaemu_ballot(file, line, all, pred), mine = pred ? yes : (all & ~yes);
  return coalesced_group(unsigned(__builtin_popcount(mine)), mine);
}
// the members of a warp's group whose label is the caller's (cuda-samples' warpAggregatedAtomicsCG): one ballot
// per bit of the label, each keeping the lanes that agree with the caller's bit
template <class Label, class Parent>
coalesced_group labeled_partition(const Parent &g, Label label, const char *file = __builtin_FILE(),
                                  int line = __builtin_LINE()) {
  static_assert(std::is_integral<Label>::value && (sizeof(Label) == 4 || sizeof(Label) == 8),
                "labeled_partition: the label is a 32- or 64-bit integer");
  const unsigned all = g.mask();
  unsigned mine = all;
  for (unsigned b = 0; b < 8 * sizeof(Label); ++b) {
    const bool bit = (static_cast<unsigned long long>(label) >> b) & 1ull;
    const unsigned yes = cudaemu_ballot(file, line, all, bit);
    mine &= bit ? yes : ~yes;
  }
  return coalesced_group(unsigned(__builtin_popcount(mine)), mine);
}
template <unsigned Size, class Parent> thread_block_tile<Size, Parent> tiled_partition(const Parent &) {
  return thread_block_tile<Size, Parent>();
}
// dynamic tiles: tiled_partition(block, n) with n a power of two up to 32
inline thread_group tiled_partition(const thread_group &parent, unsigned n) {
  if (n == 0 || n > 32 || (n & (n - 1)))
    cudaemu_cg::refuse("tiled_partition(group, n): the cpu backend supports n = 1, 2, 4, 8, 16 or 32");
  (void)parent;
  return thread_group(n);
}
template <class Group> void sync(const Group &g, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
  g.sync(file, line);
}
inline void sync(const grid_group &g) { g.sync(); }
template <class Group> unsigned long long thread_rank(const Group &g) { return g.thread_rank(); }
template <class Group> unsigned long long group_size(const Group &g) { return g.size(); }
template <class Group> unsigned long long num_threads(const Group &g) { return g.num_threads(); }

}  // namespace cooperative_groups
