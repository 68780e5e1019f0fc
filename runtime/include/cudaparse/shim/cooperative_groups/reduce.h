// Parse-only stand-in for <cooperative_groups/reduce.h>.
#pragma once
#include "../cooperative_groups.h"
namespace cooperative_groups {
template <class T> struct plus { __device__ T operator()(T a, T b) const; };
template <class T> struct less { __device__ T operator()(T a, T b) const; };
template <class T> struct greater { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_and { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const; };
template <class Group, class T, class Op> __device__ T reduce(const Group &g, T v, Op op);
}  // namespace cooperative_groups
