// hirace's area in a block's dynamic shared memory (smem mode, gpu backend): the device's and the kernel's
// attributes (asked once per kernel), the area's bytes after the program's own and whether the prior-site
// slots fit there too, and whether a cooperative launch keeps its occupancy with it. host_launch.h's
// before_launch decides with these; the cpu backend keeps its shared shadow elsewhere (cpu_shared.h).
#ifndef HIRACE_HOST_SHARED_AREA_H
#define HIRACE_HOST_SHARED_AREA_H

#if !defined(CUDAEMU)
namespace hirace {
namespace host {

inline int device_attribute(cudaDeviceAttr what, int fallback) {
  int dev = 0, v = 0;
  cudaGetDevice(&dev);
  if (cudaDeviceGetAttribute(&v, what, dev) != cudaSuccess) {
    cudaGetLastError();
    return fallback;
  }
  return v;
}

// The kernel's attributes, asked once per kernel (false: unknown, e.g. a deduced template's launch)
inline bool kernel_attributes(const void *kernel, cudaFuncAttributes *attr) {
  if (!kernel) return false;
  State &s = state();
  for (const auto &k : s.kernel_attrs)
    if (k.first == kernel) {
      *attr = k.second;
      return true;
    }
  if (cudaFuncGetAttributes(attr, kernel) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  s.kernel_attrs.push_back({kernel, *attr});
  return true;
}

// smem mode for a launch: the bytes of hirace's area after `shm` bytes of the program's, or 0 when it
// does not fit (then clocks and shared shadow stay in global memory). Beyond the default 48 KiB the
// kernel's limit is raised at every launch (the program may have set it in between).
// With `sites`, the window's prior-site slots go there too when they fit (*sites_in_area).
inline size_t shared_area_bytes(const void *kernel, const cudaFuncAttributes &attr, size_t area_offset,
                                unsigned long long tpb, unsigned long long program_words, bool sites,
                                bool *sites_in_area) {
  static const size_t optin = size_t(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, 48 * 1024));
  size_t area = size_t(8 * (tpb + program_words));
  *sites_in_area = sites && attr.sharedSizeBytes + area_offset + (area + 8) / 16 * 16 + 16 * program_words <= optin;
  if (*sites_in_area) area = (area + 8) / 16 * 16 + size_t(16 * program_words);   // (area_sites_word)
  size_t total = area_offset + area;
  if (attr.sharedSizeBytes + total > optin) return 0;
  if (attr.sharedSizeBytes + total > 48 * 1024 &&
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(total)) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return area;
}

// A cooperative launch needs every block resident at once, and the program sized its grid by the
// occupancy the API gave it for its own dynamic shared memory: hirace's area (launch_extra) may go
// beside it only where the kernel keeps as many blocks per multiprocessor with it as without.
inline bool area_keeps_occupancy(const void *kernel, int tpb, size_t shm, size_t extra) {
  int plain = 0, with_area = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plain, kernel, tpb, shm) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&with_area, kernel, tpb, shm + extra) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return with_area >= plain;
}

}  // namespace host
}  // namespace hirace
#endif

#endif  // HIRACE_HOST_SHARED_AREA_H
