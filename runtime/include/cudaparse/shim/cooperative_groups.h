// Parse-only declarations of the cooperative groups the tools must recognise
// (grid-wide synchronisation is refused by the tools that reorder blocks).
#pragma once
namespace cooperative_groups {
struct thread_block {
  __device__ void sync() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned size() const;
};
struct grid_group {
  __device__ void sync() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long size() const;
  __device__ bool is_valid() const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
}  // namespace cooperative_groups
