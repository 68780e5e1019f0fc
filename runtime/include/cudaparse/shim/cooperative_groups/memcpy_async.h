// Parse-only declarations of <cooperative_groups/memcpy_async.h>: a group copies bytes
// asynchronously; wait(group) completes every copy the group issued.
#pragma once
#include "../cooperative_groups.h"
namespace cooperative_groups {
template <class Group> __device__ void memcpy_async(const Group &group, void *dst, const void *src, size_t bytes);
template <class Group, class T> __device__ void memcpy_async(const Group &group, T *dst, size_t dst_count,
                                                             const T *src, size_t src_count);
template <class Group> __device__ void wait(const Group &group);
template <unsigned N, class Group> __device__ void wait_prior(const Group &group);
}  // namespace cooperative_groups
