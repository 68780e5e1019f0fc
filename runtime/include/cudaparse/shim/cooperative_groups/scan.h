// Parse-only stand-in for <cooperative_groups/scan.h>.
#pragma once
#include "reduce.h"
namespace cooperative_groups {
template <class Group, class T, class Op> __device__ T inclusive_scan(const Group &g, T v, Op op);
template <class Group, class T> __device__ T inclusive_scan(const Group &g, T v);
template <class Group, class T, class Op> __device__ T exclusive_scan(const Group &g, T v, Op op);
template <class Group, class T> __device__ T exclusive_scan(const Group &g, T v);
}  // namespace cooperative_groups
