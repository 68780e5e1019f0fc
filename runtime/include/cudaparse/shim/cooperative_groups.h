// Parse-only declarations of cooperative groups (the API of CUDA's <cooperative_groups.h>).
// The tools recognise group synchronisation as barriers: thread_block as __syncthreads,
// tiles and coalesced groups as warp barriers; grid_group::sync is refused by tools that
// reorder blocks and by the cpu backend.
#pragma once
namespace cooperative_groups {
class thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned meta_group_rank() const;
  __device__ unsigned meta_group_size() const;
};
class thread_block : public thread_group {
 public:
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 dim_threads() const;
  __device__ dim3 group_dim() const;
};
class grid_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long block_rank() const;
  __device__ unsigned long long num_blocks() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_blocks() const;
  __device__ dim3 block_index() const;
  __device__ bool is_valid() const;
};
class coalesced_group : public thread_group {
 public:
  template <class T> __device__ T shfl(T v, int src) const;
  template <class T> __device__ T shfl_down(T v, unsigned d) const;
  template <class T> __device__ T shfl_up(T v, unsigned d) const;
  __device__ int any(int pred) const;
  __device__ int all(int pred) const;
  __device__ unsigned ballot(int pred) const;
};
template <unsigned Size, class Parent = void> class thread_block_tile : public coalesced_group {
 public:
  thread_block_tile();
  template <class P> __device__ thread_block_tile(const thread_block_tile<Size, P> &);
  template <class T> __device__ T shfl_xor(T v, unsigned mask) const;
  template <class T> __device__ unsigned match_any(T v) const;
  template <class T> __device__ unsigned match_all(T v, int &pred) const;
  static constexpr unsigned num_threads() { return Size; }
  static constexpr unsigned size() { return Size; }
};
template <unsigned MaxBlockSize> struct block_tile_memory {};
__device__ thread_block this_thread_block();
template <unsigned N> __device__ thread_block this_thread_block(block_tile_memory<N> &scratch);
__device__ grid_group this_grid();
__device__ coalesced_group coalesced_threads();
template <unsigned Size, class Parent> __device__ thread_block_tile<Size, Parent> tiled_partition(const Parent &g);
__device__ thread_group tiled_partition(const thread_group &parent, unsigned tile_size);
template <class Parent> __device__ coalesced_group binary_partition(const Parent &g, bool pred);
template <class Label, class Parent> __device__ coalesced_group labeled_partition(const Parent &g, Label label);
template <class Group> __device__ void sync(const Group &g);
template <class Group> __device__ unsigned long long thread_rank(const Group &g);
template <class Group> __device__ unsigned long long group_size(const Group &g);
template <class Group> __device__ unsigned long long num_threads(const Group &g);
}  // namespace cooperative_groups
